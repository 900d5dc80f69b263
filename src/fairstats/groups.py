"""Group labels: each row's group, and the label of an intersectional group.

:func:`group_labels` names each row's group as the contingency table (:class:`fairstats.ContingencyTable`)
does, so that tables from every module line up; the validated two-group sample that the bootstrap, the
outcome tests and the fold-aware disparity share is :func:`fairstats._rows.two_group_rows`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from fairstats._validation import as_list, checked_frame

__all__ = ["group_labels", "intersection_label"]

_SEPARATOR = " - "


def _as_written(part: str) -> bool:
    """A part shown as written: non-empty, no separator inside or at an edge, no leading quote."""
    return (
        part != ""
        and " -" not in part
        and "- " not in part
        and not part[0].isspace()
        and not part[-1].isspace()
        and part[0] not in "-'\""
        and part[-1] != "-"
    )


def intersection_label(values: Sequence[object]) -> str:
    """Display label of one intersectional group: its values as text joined by ``" - "``, unambiguously.

    A value that could blur the separator (it contains ``" -"`` or ``"- "``, starts or ends with white space
    or ``-``, starts with a quote, or is empty) is written as a quoted Python literal (``repr``), so that two
    different tuples never get the same label: ``("x - y", "w")`` gives ``'x - y' - w`` and ``("x", "y - w")``
    gives ``x - 'y - w'``. Ordinary values are unchanged (``"Female - African-American"``), and so is the
    value of a single column.
    """
    texts = [str(v) for v in values]
    if len(texts) == 1:  # one column: its value as it is
        return texts[0]
    return _SEPARATOR.join(t if _as_written(t) else repr(t) for t in texts)


def group_labels(data: pd.DataFrame, group: str | Sequence[str]) -> pd.Series:
    """Group label of each row: the column's value as text, or the listed columns' values joined by ``" - "``
    (:func:`intersection_label`, unambiguous).

    The labels are those of :meth:`fairstats.ContingencyTable.from_frame` (``"Female - African-American"`` for
    ``group=["sex", "race"]``), so that tables from both modules line up.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per person.
    group : str or list of str
        Sensitive attribute column(s).

    Returns
    -------
    pandas.Series
        Strings, index of ``data``, named ``" x ".join(group)``.

    Raises
    ------
    ValueError
        A column is missing or holds NaN.
    """
    columns = as_list(group, name="group")
    data = checked_frame(data, columns).frame
    if len(columns) == 1:
        labels = data[columns[0]].astype(str).to_numpy(dtype=object)
    else:  # one label per distinct combination, not per row: factorize each column, label the combinations
        # on the values' text, which is all a label depends on (1 and 1.0 hash alike but read "1", "1.0")
        factors = [pd.factorize(data[c].astype(str).to_numpy(dtype=object)) for c in columns]
        shape = [max(len(u), 1) for _, u in factors]
        flat = np.ravel_multi_index([codes for codes, _ in factors], shape)
        combos, inverse = np.unique(flat, return_inverse=True)
        parts = np.unravel_index(combos, shape)
        uniques = [u for _, u in factors]
        names = np.array(
            [intersection_label([u[i] for u, i in zip(uniques, idx, strict=True)])
             for idx in zip(*parts, strict=True)],
            dtype=object,
        )  # fmt: skip
        labels = names.take(inverse.ravel())
    return pd.Series(labels, index=data.index, name=" x ".join(columns))
