"""Publishing and judging the results: published vs reproduced, ``make verify``, the site, stable bytes.

* :mod:`~compendium.publish.published` — the vocabulary of ``results/published-vs-reproduced.csv``: its
  columns, whether a number matches a printed one (the only place that says so), and the collection;
* :mod:`~compendium.publish.pvr_classes` — the class and evidence of each of its rows;
* :mod:`~compendium.publish.verify` — ``make verify`` (``python -m compendium.publish.verify``);
* :mod:`~compendium.publish.site` — the static HTML site (templates in ``templates/``);
* :mod:`~compendium.publish.executed_notebook` — executed notebooks without run-specific noise;
* :mod:`~compendium.publish.stable_floats` and :mod:`~compendium.publish.blas` — floats and BLAS kernels
  declared so that the committed bytes do not depend on the CPU.

Nothing here imports a paper's package: the papers write pieces, this package reads them.
"""
