"""Paper A (equal confusion fairness on COMPAS): its case study and COMPAS's three-level decision.

* :mod:`compendium.paper_a.case_study` — the paper's descriptive tables and figures, and every printed
  number beside ours;
* :mod:`compendium.paper_a.compas_levels` — the violent risk level Low / Medium / High (issue 17 A).

The names below are those the case-study notebook (``notebooks/paper_a_equal_confusion.ipynb``) imports
from ``compendium.paper_a``; everything else is imported from its module.
"""

from compendium.paper_a.case_study import (
    PAPER_A_GROUPINGS,
    crosstab_with_shares,
    headline_numbers,
    overall_confusion,
    parse_groupings,
    plot_group_confusion_matrices,
    plot_residual_heatmap,
    ratio_panels,
)

__all__ = [
    "PAPER_A_GROUPINGS",
    "crosstab_with_shares",
    "headline_numbers",
    "overall_confusion",
    "parse_groupings",
    "plot_group_confusion_matrices",
    "plot_residual_heatmap",
    "ratio_panels",
]
