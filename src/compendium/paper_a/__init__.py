"""Paper A (equal confusion fairness on COMPAS): its case study, COMPAS's three-level decision, and the COMPAS
studies beyond it (the subgroup search, the monitor).

* :mod:`compendium.paper_a.case_study` — the paper's descriptive tables and figures, and every printed
  number beside ours;
* :mod:`compendium.paper_a.compas_levels` — the violent risk level Low / Medium / High (issue 17 A);
* :mod:`compendium.paper_a.subgroup_search` — which subgroup? The search with family-wise error control and
  its null simulation (issue 17 B);
* :mod:`compendium.paper_a.monitoring` — anytime-valid monitoring: simulated streams and COMPAS replayed in
  screening order (issue 27).

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
