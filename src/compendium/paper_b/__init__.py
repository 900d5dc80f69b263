"""Paper B (statistically significant fairness violations on the NIJ data): our rerun and the authors' own.

Our rerun: :mod:`~compendium.paper_b.models` (the paper's model presets and cleaned-up ones),
:mod:`~compendium.paper_b.folds` (fold schemes), :mod:`~compendium.paper_b.crossval` (out-of-fold and
race-flipped predictions), :mod:`~compendium.paper_b.predictions` (their parquet files),
:mod:`~compendium.paper_b.fold_accuracy` (Table I per fold beside the authors'),
:mod:`~compendium.paper_b.battery` (the 15 tests beside correct ones) and
:mod:`~compendium.paper_b.battery_pvr` (the rerun's numbers beside the printed ones).

The authors' own: :mod:`~compendium.paper_b.authors` (their committed per-fold files, the printed tables),
:mod:`~compendium.paper_b.authors_procedure` and :mod:`~compendium.paper_b.authors_awareness` (their
refits and nearest-neighbour search, as they ran them), :mod:`~compendium.paper_b.printed_readings`
(readings of the equations, declared before they are run), :mod:`~compendium.paper_b.per_fold_searches`
(declared readings of the two numbers of Tables I-X that the authors' per-fold files miss),
:mod:`~compendium.paper_b.printed_arithmetic` (printed counts that no procedure can give),
:mod:`~compendium.paper_b.authors_procedure_pvr` (those numbers beside the printed ones).

What the paper printed but got wrong: :mod:`~compendium.paper_b.as_published` (its fold t and its Table XX
McNemar formula, beside the library's correct tests), :mod:`~compendium.paper_b.calibration` (its calibration
and well-calibration χ² of Eq. 1-2, whose χ² reference is not justified, beside the library's
``calibration_independence_test``) and :mod:`~compendium.paper_b.verdicts` (its verdicts beside the corrected
t, Holm and BH).

Beyond the paper's verdicts: :mod:`~compendium.paper_b.directions` (which way a violation points),
:mod:`~compendium.paper_b.three_way` (violation, equivalence or no answer),
:mod:`~compendium.paper_b.battery_multiplicity` (Holm and BH over the battery),
:mod:`~compendium.paper_b.nij_equal_confusion` (paper A's test and bootstrap disparities on the models'
predictions), :mod:`~compendium.paper_b.compas_outcomes` (the paper's outcome tests without folds, on COMPAS)
and :mod:`~compendium.paper_b.score_audit` (sound tests of a risk score by group).
"""
