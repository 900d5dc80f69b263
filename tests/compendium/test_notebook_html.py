"""Notebook pages with their formulas typeset offline (compendium.publish.notebook_html)."""

from __future__ import annotations

import nbformat
import pytest

from compendium.publish.notebook_html import MATHJAX, copy_mathjax, main, mathjax_source, render_notebook


def _notebook(tmp_path):
    cell = nbformat.v4.new_markdown_cell("# T\n\n$r_{ij} = O - E$ and $$\\chi^2$$")
    nb = nbformat.v4.new_notebook(cells=[cell])
    path = tmp_path / "t.ipynb"
    nbformat.write(nb, path)
    return path


def test_a_page_loads_the_sites_mathjax_by_a_relative_url_and_no_cdns(tmp_path):
    site = tmp_path / "site"
    page = render_notebook(_notebook(tmp_path), site / "notebooks" / "a" / "b" / "t.html", site=site)
    html = page.read_text(encoding="utf-8")
    assert 'src="../../../mathjax/tex-svg.js"' in html
    assert "window.MathJax" in html and "inlineMath" in html  # MathJax 3's configuration, not 2's
    assert "cdnjs.cloudflare.com/ajax/libs/mathjax" not in html and "MathJax.Hub" not in html
    assert "r_{ij} = O - E" in html and "<title>t</title>" in html  # titled by the notebook's name


def test_the_sites_mathjax_is_the_locked_copy_and_a_page_outside_the_site_is_refused(tmp_path):
    copied = copy_mathjax(tmp_path / "site" / MATHJAX)
    assert copied.read_bytes() == mathjax_source().read_bytes() and copied.stat().st_size > 1_000_000
    with pytest.raises(ValueError, match="is not inside the site folder"):
        render_notebook(_notebook(tmp_path), tmp_path / "elsewhere.html", site=tmp_path / "site")
    args = [str(_notebook(tmp_path)), str(tmp_path / "elsewhere.html"), "--site", str(tmp_path / "site")]
    assert main(args) == 2
    assert not (tmp_path / "elsewhere.html").exists()
