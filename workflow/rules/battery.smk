# Rules for the battery stage.


def battery_targets():
    return []
