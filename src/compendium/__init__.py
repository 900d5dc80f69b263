"""The compendium: the two papers rebuilt from their raw data with the fairstats library, laid out by paper.

* :mod:`compendium.data` — loaders and filters of the raw data (COMPAS, NIJ) and their checksummed downloads;
* :mod:`compendium.paper_a` — paper A (equal confusion on COMPAS): its case-study tables and figures, and
  COMPAS's three-level decision;
* :mod:`compendium.paper_b` — paper B (the NIJ battery): model presets, folds, cross-validated predictions,
  the battery of our rerun, the authors' own files and procedures, the declared readings of its equations,
  verdict directions and three-way verdicts;
* :mod:`compendium.publish` — publishing and judging the results: the published-vs-reproduced table (its
  vocabulary, the one "matches printed" and the classes of its rows), ``make verify``, the HTML site,
  executed notebooks without run noise, floats stable across BLAS kernels;
* :mod:`compendium.course` — the course labs.

Arrows point one way: ``paper_a`` and ``paper_b`` use ``publish`` (its vocabulary) and ``data``; ``publish``
imports neither paper (it reads the files they write). It uses fairstats' public API like any user; fairstats
never imports it.
"""
