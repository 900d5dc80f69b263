# Rules for the report stage.


def report_targets():
    return []
