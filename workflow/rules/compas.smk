# Rules for the compas stage.


def compas_targets():
    return []
