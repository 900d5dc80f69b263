"""Sphinx configuration of the fairstats API site (`make docs` -> docs/_build/html/)."""

from __future__ import annotations

import shutil
from pathlib import Path

import fairstats

ROOT = Path(__file__).resolve().parents[1]

project = "fairstats"
author = "fairstats developers"
copyright = "2026, fairstats developers (MIT licence)"
version = release = fairstats.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax served from the site itself: formulas render offline too
    "numpydoc",
]
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False  # result classes list their fields in the docstring's Attributes
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
exclude_patterns = ["_build"]
templates_path = ["_templates"]
nitpicky = False

html_theme = "pydata_sphinx_theme"
html_title = f"fairstats {release}"
# the image check of the compendium's site (tests/compendium/workflow/browser.py reads what it marks on <body>)
html_static_path = ["../src/compendium/publish/templates/static"]
html_js_files = ["image-check.js"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": True,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"**": ["sidebar-nav-bs"]}
html_show_sourcelink = False
html_copy_source = False

# The compendium's rendered notebooks and result pages (results/default/report/, committed) are copied into
# the site as compendium/, so that the docs link them and the site stays one self-contained folder.
COMPENDIUM_REPORT = ROOT / "results" / "default" / "report"


def _copy_compendium_report(app, exception):
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "compendium"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(COMPENDIUM_REPORT, target)


def setup(app):
    if not (COMPENDIUM_REPORT / "index.html").is_file():
        raise RuntimeError(f"{COMPENDIUM_REPORT}/index.html is missing: run `make report` first")
    app.connect("build-finished", _copy_compendium_report)
