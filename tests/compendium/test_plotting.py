"""Figures are saved as PNG and PDF, byte-identical across runs."""

import matplotlib.pyplot as plt

from compendium.publish.plotting import save_figure, set_style


def _figure():
    set_style()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    return fig


def test_save_figure_writes_png_and_pdf_reproducibly(tmp_path):
    first = save_figure(_figure(), tmp_path / "a" / "fig")
    second = save_figure(_figure(), tmp_path / "b" / "fig.png")
    assert first.suffix == ".png" and first.with_suffix(".pdf").exists()
    assert first.read_bytes() == second.read_bytes()
    assert first.with_suffix(".pdf").read_bytes() == second.with_suffix(".pdf").read_bytes()
    plt.close("all")


def test_save_figure_writes_no_date_or_version(tmp_path):
    import matplotlib

    png = save_figure(_figure(), tmp_path / "fig")
    for data in (png.read_bytes(), png.with_suffix(".pdf").read_bytes()):
        assert b"CreationDate" not in data
        assert matplotlib.__version__.encode() not in data  # PNG "Software", PDF "Creator"/"Producer"
    plt.close("all")
