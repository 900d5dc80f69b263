# Rules for the data stage.


def data_targets():
    return []
