"""Notebooks rendered to HTML for the site, their formulas typeset offline by the site's own MathJax.

nbconvert's HTML pages load MathJax from a CDN; opened without a network, their formulas show as raw TeX. The
site instead carries one copy of MathJax 3 (``tex-svg.js``: TeX input, SVG output, fonts included, one file of
2 MB) at :data:`MATHJAX`, copied from the MathJax that the API docs serve offline (the locked
``sphinx-mathjax-offline``, MathJax 3.2.2, Apache-2.0), and every rendered notebook points at it by a
relative URL through the template ``templates/nbconvert/offline_math.html.j2`` (nbconvert's JupyterLab page
with MathJax 3's configuration instead of MathJax 2's).

Command line (the workflow's ``copy_site_mathjax``, ``render_html`` and ``render_course_lab`` rules)::

    python -m compendium.publish.notebook_html --mathjax SITE/mathjax/tex-svg.js
    python -m compendium.publish.notebook_html NOTEBOOK.ipynb OUT.html --site SITE
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
from pathlib import Path

from compendium.publish.reporting import atomic_write_text

__all__ = ["MATHJAX", "TEMPLATE", "mathjax_source", "render_notebook"]

#: Where the site keeps its MathJax, relative to the site's folder.
MATHJAX = "mathjax/tex-svg.js"
#: The nbconvert template of the site's notebook pages.
TEMPLATE = Path(__file__).parent / "templates" / "nbconvert" / "offline_math.html.j2"
_PACKAGE = "sphinx-mathjax-offline"


def mathjax_source() -> Path:
    """The MathJax file the site copies (from the locked ``sphinx-mathjax-offline``).

    Raises
    ------
    FileNotFoundError
        The package or its ``tex-svg.js`` is not installed (``make env`` installs it from the lock).
    """
    spec = importlib.util.find_spec(_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        path = Path(folder) / "static" / "mathjax" / "tex-svg.js"
        if path.is_file():
            return path
    raise FileNotFoundError(f"MathJax: {_PACKAGE} with static/mathjax/tex-svg.js is not installed (make env "
                            f"installs it from requirements/compendium.lock.txt)")


def copy_mathjax(out: str | os.PathLike) -> Path:
    """Copy the site's MathJax to ``out``; returns ``out``."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".part")
    shutil.copyfile(mathjax_source(), tmp)
    os.replace(tmp, out)
    return out


def render_notebook(notebook: str | os.PathLike, html: str | os.PathLike, *, site: str | os.PathLike) -> Path:
    """Render ``notebook`` to ``html`` (a page inside the site folder ``site``), its formulas typeset by the
    site's MathJax (:data:`MATHJAX`, by a URL relative to the page); written atomically.

    Raises
    ------
    ValueError
        ``html`` does not lie inside ``site``.
    """
    import nbformat
    from nbconvert import HTMLExporter

    html, site = Path(html), Path(site)
    if not html.resolve().is_relative_to(site.resolve()):
        raise ValueError(f"html: {str(html)!r} is not inside the site folder {str(site)!r}")
    url = Path(os.path.relpath(site.resolve() / MATHJAX, html.resolve().parent)).as_posix()
    exporter = HTMLExporter(template_file=str(TEMPLATE), mathjax_url=url)
    # the page's title is the notebook's name, as `jupyter nbconvert` gives it
    resources = {"metadata": {"name": Path(notebook).stem}}
    body, _ = exporter.from_notebook_node(nbformat.read(notebook, as_version=4), resources=resources)
    html.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(html, body)
    return html


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m compendium.publish.notebook_html",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("notebook", nargs="?", help="the notebook to render (.ipynb)")
    parser.add_argument("html", nargs="?", help="the page to write, inside --site")
    parser.add_argument("--site", help="the site's folder (its MathJax is SITE/" + MATHJAX + ")")
    parser.add_argument("--mathjax", help="copy the site's MathJax to this path and exit")
    args = parser.parse_args(argv)
    try:
        if args.mathjax:
            copy_mathjax(args.mathjax)
            return 0
        if not (args.notebook and args.html and args.site):
            parser.error("give NOTEBOOK HTML --site SITE, or --mathjax PATH")
        render_notebook(args.notebook, args.html, site=args.site)
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
