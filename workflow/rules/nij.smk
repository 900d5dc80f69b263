# Rules for the nij stage.


def nij_targets():
    return []
