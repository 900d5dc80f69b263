"""Paper B's erratum: every printed number of Tables II-XXV that is wrong or cannot be reproduced, and why.

Built from the tables the workflow has written, never typed by hand: the printed numbers beside every source
(``paper_b_tables.csv``, :func:`compendium.paper_b.printed_layout.combine_sources`), both batteries, the
checks of the printed counts (:func:`compendium.paper_b.authors.printed_count_checks`), the printed counts
arithmetic rules out (``printed_impossible.csv``) and, where they ran, the authors' procedures' tables
(:class:`AuthorsProcedureTables`). :func:`paper_b_erratum` gives one row per printed number (or block of
numbers) with its ``kind`` (:data:`ERRATUM_KINDS`), its ``cause`` and the ``evidence``; rule
``write_paper_b_erratum`` writes it as ``paper_b_erratum.csv``. :func:`erratum_by_kind` and
:func:`changed_conclusions` summarise it for the notebook ``paper_b_battery.ipynb``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from compendium.paper_b.as_published import mcnemar_midp_as_published
from compendium.paper_b.conclusions import models_of
from compendium.paper_b.directions import PRINTED_VERDICTS, printed_number_directions
from compendium.paper_b.printed_layout import MODEL_NAME, NAME_MODEL, sources_of
from compendium.publish.published import matches_printed_pvalue
from fairstats.mcnemar import mcnemar_midp

__all__ = [
    "ERRATUM_COLUMNS",
    "ERRATUM_KINDS",
    "AuthorsProcedureTables",
    "changed_conclusions",
    "erratum_by_kind",
    "paper_b_erratum",
    "square_root_ratio",
]

#: Columns of :func:`paper_b_erratum`'s table.
ERRATUM_COLUMNS = ("table", "row", "column", "published", "kind", "cause", "evidence")
#: Every kind of erratum row, in the order the causes are examined.
ERRATUM_KINDS = (
    "wrong: t without the square root",
    "wrong: does not follow from the authors' per-fold values",
    "wrong: Table XX's p formula",
    "impossible: printed count ruled out by arithmetic",
    "not reproduced: other models than Table I",
    "inconsistent: printed counts",
    "irreproducible from the committed files",
    "invalid test: calibration chi-square",
    "mislabelled row",
    "meaningless: neighbour decided by rounding",
    "wrong quantity: two different classes",
    "contradiction: printed counts against the text",
)
_T_ROOT = "wrong: t without the square root"
_XX_FORMULA = "wrong: Table XX's p formula"


@dataclass(frozen=True)
class AuthorsProcedureTables:
    """The tables of the authors' procedures the erratum cites (rule ``authors_procedure_tables`` and the
    opt-in exact search); None where not made.

    Attributes
    ----------
    causal_counts : pandas.DataFrame or None
        ``causal_count_tables.csv``: the refits' 2x2 counts of Tables XVI-XIX.
    random_neighbour : pandas.DataFrame or None
        ``awareness_random_neighbour.csv``: the printed awareness counts against a uniformly random neighbour.
    setups : pandas.DataFrame or None
        ``exact_search_setups.csv``: how many chosen neighbours another floating-point set-up changes.
    exact_search : pandas.DataFrame or None
        ``awareness_exact_search.csv``: Tables XXI-XXIV from the exact search on every fold.
    gaps : pandas.DataFrame or None
        ``exact_search_gaps.csv``: each printed count's gap against the other set-ups tried.
    """

    causal_counts: pd.DataFrame | None = None
    random_neighbour: pd.DataFrame | None = None
    setups: pd.DataFrame | None = None
    exact_search: pd.DataFrame | None = None
    gaps: pd.DataFrame | None = None

    #: The file each table is read from (rule ``authors_procedure_tables`` and the opt-in exact search).
    FILES = {
        "causal_counts": "causal_count_tables.csv",
        "random_neighbour": "awareness_random_neighbour.csv",
        "setups": "exact_search_setups.csv",
        "exact_search": "awareness_exact_search.csv",
        "gaps": "exact_search_gaps.csv",
    }

    @classmethod
    def from_files(cls, **paths: str | os.PathLike) -> AuthorsProcedureTables:
        """The tables read from ``paths`` (attribute name -> CSV file, e.g. ``gaps="exact_search_gaps.csv"``);
        a table not given stays None."""
        unknown = sorted(set(paths) - set(cls.FILES))
        if unknown:
            raise TypeError(
                f"AuthorsProcedureTables.from_files: unknown table {unknown[0]!r}; known {sorted(cls.FILES)}"
            )
        return cls(**{k: pd.read_csv(v) for k, v in paths.items()})


def square_root_ratio(battery: pd.DataFrame) -> pd.DataFrame:
    """The paper's t over the pooled t, per fold-based test of the battery, beside what the missing square
    root makes it: ``1 / sqrt(1/K_W + 1/K_B)`` for K_W White and K_B Black fold values (sqrt(K/2) for K of
    each).

    Returns
    -------
    pandas.DataFrame
        ``source, table, model, n_white, n_black, ratio, expected``, one row per test with both statistics.
    """
    rows = battery.loc[battery["statistic_paper_formula"].notna() & battery["statistic_pooled"].notna()]
    out = rows[["source", "table", "model", "n_white", "n_black"]].copy()
    out["ratio"] = rows["statistic_paper_formula"] / rows["statistic_pooled"]
    out["expected"] = 1 / np.sqrt(1 / rows["n_white"] + 1 / rows["n_black"])
    return out.reset_index(drop=True)


def _awareness_gaps_evidence(ap: AuthorsProcedureTables) -> str:
    """What the exact search on every fold and the other set-ups tried give (exact_search_gaps.csv)."""
    if ap.exact_search is None:
        return "; the authors' exact search on every fold was not run"
    ex = ap.exact_search
    text = (
        "; the authors' exact search on every fold (awareness_exact_search.csv) gives "
        f"{int((ex['published'] == ex['n']).sum())} of {len(ex)} printed cells exactly"
    )
    gaps = ap.gaps if ap.gaps is not None else pd.DataFrame()
    if len(gaps):
        blocks = gaps.groupby(["table", "group", "setup"])["gap_in_range"].all()
        towards = (
            gaps[gaps["gap"] != 0]
            .groupby(["table", "group", "original", "neighbor"])["direction"]
            .apply(lambda d: d.isin(["away", "still"]).all())
        )
        text += (
            "; against the other set-ups tried (exact_search_gaps.csv), every set-up moves our count away "
            f"from the printed one or leaves it in {int(towards.sum())} of {len(towards)} cells with a gap, "
            f"and {int(blocks.sum())} of {len(blocks)} (block, set-up) pairs hold all four gaps of the block"
        )
    return text


def paper_b_erratum(
    combined: pd.DataFrame,
    battery: pd.DataFrame,
    *,
    published: pd.DataFrame,
    count_checks: pd.DataFrame,
    impossible: pd.DataFrame | None = None,
    authors_procedure: AuthorsProcedureTables | None = None,
    alpha: float = 0.05,
    preset: str = "paper",
) -> pd.DataFrame:
    """Every printed number of Tables II-XXV that is wrong or cannot be reproduced, with its cause.

    Parameters
    ----------
    combined : pandas.DataFrame
        The printed numbers beside every source (:func:`~compendium.paper_b.printed_layout.combine_sources`
        or :func:`~compendium.paper_b.printed_layout.read_combined`).
    battery : pandas.DataFrame
        Both batteries (:func:`~compendium.paper_b.printed_layout.read_battery`), column ``source``
        (``authors-per-fold``, ``rerun``).
    published : pandas.DataFrame
        The transcription of the paper (:func:`~compendium.paper_b.authors.read_published_b`).
    count_checks : pandas.DataFrame
        :func:`~compendium.paper_b.authors.printed_count_checks`' table.
    impossible : pandas.DataFrame, optional
        ``printed_impossible.csv`` (rule ``authors_battery``; ``published`` as text).
    authors_procedure : AuthorsProcedureTables, optional
        The authors' procedures' tables; needed (its ``random_neighbour`` at least) when ``combined`` has the
        source ``authors-procedure``.
    alpha : float
        The paper's family level (Table XX's verdicts).
    preset : str
        The rerun's model preset, named in the evidence.

    Returns
    -------
    pandas.DataFrame
        :data:`ERRATUM_COLUMNS`, one row per printed number (or block of numbers), grouped by the order of
        the causes examined (:data:`ERRATUM_KINDS`).

    Notes
    -----
    The causes, in order: (1) every printed t statistic lacks the square root; (2) numbers the authors'
    per-fold values do not give; (3) Table XX/XXV p-values follow a formula that is not Eq. 3; (4) printed
    counts that do not add up or that arithmetic rules out, unless the authors' refits give them; (5) numbers
    the committed files cannot give; (6) the calibration chi-square is not a test; (7) rows printed with the
    wrong label; (8) the awareness tables' neighbour is decided by rounding; (9) Table XV is another quantity
    than the one named; (10) printed counts that contradict the text's direction.
    """
    ap = authors_procedure or AuthorsProcedureTables()
    sources = sources_of(combined)
    rerun = battery[battery["source"] == "rerun"]
    errata = []

    def add(table, row, column, printed, kind, cause, evidence=""):
        errata.append(
            dict(zip(ERRATUM_COLUMNS, (table, row, column, printed, kind, cause, evidence), strict=True))
        )

    # 1. every printed t statistic lacks the square root
    for _, p in combined[combined["column"] == "Test Statistic"].iterrows():
        model = NAME_MODEL[p["row"]]
        for source in sources:
            b = battery[
                (battery["source"] == source) & (battery["table"] == p["table"]) & (battery["model"] == model)
            ]
            if len(b):
                b = b.iloc[0]
                break
        else:  # no source ran this model (e.g. a configuration with fewer models): nothing to show
            continue
        evidence = (
            f"{source}: pooled t {b['statistic_pooled']:.3f}, corrected t {b['statistic_corrected']:.3f} (p "
            f"{b['pvalue_corrected']:.3g})"
        )
        if p["table"] == "XV" and np.isfinite(p.get("authors_procedure", np.nan)):
            # the rerun's t is about another quantity than the printed one: describe the printed number itself
            evidence = (
                "authors-procedure: the paper's formula on E(S | y=1) of Black minus E(S | y=0) of White "
                f"people gives {p['authors_procedure']:.2f} "
                + (
                    "(the printed number)"
                    if p["matches_authors_procedure"]
                    else "on our fits of this model, which differ from the authors' in some folds"
                )
                + f"; its pooled t is {p['authors_procedure'] / np.sqrt(125):.2f}"
            )
        add(
            p["table"],
            p["row"],
            "Test Statistic",
            p["published"],
            _T_ROOT,
            "t = (mean W - mean B) / (s_p (1/K + 1/K)) lacks the square root over 1/K + 1/K: sqrt(K/2) = "
            "11.2 times the pooled t; the pooled t itself ignores that the folds' models share their "
            "training data",
            evidence,
        )

    # 2. numbers that the authors' own per-fold values do not give
    auth = combined[
        combined["authors_per_fold"].notna()
        & ~combined["matches_authors_per_fold"]
        & ~combined["table"].isin(["XX", "XXV"])  # their p-values: cause 3 below
    ]
    for _, p in auth.iterrows():
        add(
            p["table"],
            p["row"],
            p["column"],
            p["published"],
            "wrong: does not follow from the authors' per-fold values",
            p["note_authors_per_fold"],
            f"authors-per-fold {p['authors_per_fold']:.6g}",
        )

    # 3. Table XX/XXV p-values: the printed formula is not Eq. 3
    for _, p in combined[
        (combined["table"].isin(["XX", "XXV"])) & (combined["column"] == "P-Value")
    ].iterrows():
        cells = combined[(combined["table"] == p["table"]) & (combined["row"] == p["row"])].set_index(
            "column"
        )
        k, n_k = int(cells["published"]["K"]), int(cells["published"]["N-K"])
        mid, pub = mcnemar_midp(k, n_k).pvalue, mcnemar_midp_as_published(k, n_k).pvalue
        if matches_printed_pvalue(p["published"], pub) and not matches_printed_pvalue(p["published"], mid):
            change = (mid < alpha) != (pub < alpha)
            add(
                p["table"],
                p["row"],
                "P-Value",
                p["published"],
                _XX_FORMULA,
                "printed p = 2 cdf(m) - 0.5 pmf(m), not the mid-p 2 cdf(m) - pmf(m) of the paper's own Eq. 3"
                + (f"; the verdict at alpha = {alpha:g} changes" if change else ""),
                f"mid-p from the printed K = {k}, N-K = {n_k}: {mid:.4g}; printed formula {pub:.4g}",
            )

    # 4. printed counts that do not add up, and those arithmetic on the other printed counts rules out
    if impossible is not None:
        for _, c in impossible.iterrows():
            add(
                c["table"],
                c["row"],
                c["column"],
                c["published"],
                "impossible: printed count ruled out by arithmetic",
                c["arithmetic"],
                "printed_impossible.csv (compendium.paper_b.printed_arithmetic)",
            )
    refit_totals = {}
    if ap.causal_counts is not None:
        # the authors' refits (without Race_WHITE) give the "original" column of Tables XVI-XIX and XXI-XXIV
        cc = ap.causal_counts
        refit_totals = cc[cc["original"] == 0].groupby(["model", "group"])["n"].sum().to_dict()
    for _, c in count_checks[~count_checks["ok"]].iterrows():
        refit = refit_totals.get((c["model"], c["group"]))
        if c["check"] == "original_0_total" and refit is not None:
            if refit == int(c["printed"]):
                # not a misprint: the printed column is the refits' count, not Table I's (Contingencies.csv)
                continue
            add(
                c["table"],
                f"{c['model']} / {c['group']}",
                c["check"],
                str(c["printed"]),
                "not reproduced: other models than Table I",
                "the printed 'original' column comes from the authors' refits without Race_WHITE, not from "
                f"Table I's models (whose count {c['expected']} is in Contingencies.csv: the random forest's "
                f"refits give its printed column exactly); our refit of this model predicts 0 for {refit} "
                f"people, not the printed {c['printed']}: it is not the authors' refit",
                f"authors-procedure refit: {refit} (causal_count_tables.csv)",
            )
            continue
        add(
            c["table"],
            f"{c['model']} / {c['group']}",
            c["check"],
            str(c["printed"]),
            "inconsistent: printed counts",
            f"the printed block gives {c['printed']}, but {c['note']} is {c['expected']}",
            "",
        )

    # 5. numbers the authors' committed files cannot give (inputs not committed)
    irrepro = combined[combined["authors_per_fold"].isna()]
    for table, g in irrepro.groupby("table", sort=False):
        if g["matches_rerun"].all() or (
            "authors_procedure" in g and g["matches_authors_procedure"].fillna(False).all()
        ):
            # regenerated exactly by the rerun or the authors' procedure (e.g. XVII, XVIII): not an erratum
            continue
        note = g["note_authors_per_fold"].iloc[0].split(";")[0]
        evidence = f"rerun ({preset}) matches {int(g['matches_rerun'].sum())} of {len(g)}"
        if "authors_procedure" in g:
            evidence += f"; authors-procedure matches {int(g['matches_authors_procedure'].sum())} of {len(g)}"
        add(
            table,
            f"all {len(g)} printed numbers",
            "",
            "",
            "irreproducible from the committed files",
            note,
            evidence,
        )

    # 6. calibration chi-square is not a test
    chi2 = "Chi Squared Test Statistic"
    for table in ("XII", "XIII"):
        for _, p in combined[(combined["table"] == table) & (combined["column"] == chi2)].iterrows():
            b = rerun[(rerun["table"] == table) & (rerun["model"] == NAME_MODEL[p["row"]])]
            evidence = ""
            if len(b):
                b = b.iloc[0]
                evidence = (
                    "rerun, the text's reading (unit bins, outcome 0 counted, gamma expected) on our "
                    f"scores: chi2 {b['statistic']:.2f} on {int(b['df'])} df, p {b['pvalue']:.3g}"
                )
                if table == "XII" and np.isfinite(b["pvalue_alternative"]):
                    evidence += (
                        f"; summed independence chi2 {b['statistic_alternative']:.2f} on "
                        f"{int(b['df_alternative'])} df, p {b['pvalue_alternative']:.3g}"
                    )
            if "authors_procedure" in p and np.isfinite(p["authors_procedure"]):
                # the declared reading nearest to the printed table (compendium.paper_b.printed_readings)
                reading = re.search(
                    r"nearest reading '([^']+)' \(mean relative error ([^)]+)\)", p["note_authors_procedure"]
                )
                if reading:
                    evidence += (
                        f"; nearest declared reading to the printed table: '{reading.group(1)}' (mean "
                        f"relative error {reading.group(2)}), {p['authors_procedure']:.2f} for the printed "
                        f"{p['published']} (off by {p['authors_procedure'] - float(p['published']):+.2f})"
                    )
            add(
                table,
                p["row"],
                chi2,
                p["published"],
                "invalid test: calibration chi-square",
                "gamma_i is an observed (random) count used as the expected one, lambda_i = theta_i/alpha_i "
                "* beta_i rescales the Black count without its sampling variance, and (well-calibration) "
                "the bin ends are not expected counts: the statistic has no chi-square distribution on k-1 "
                "(2k-1) df",
                evidence,
            )

    # 7. labels printed wrongly
    for _, p in (
        published[published["printed_row"] != published["row"]].drop_duplicates(["table", "row"]).iterrows()
    ):
        if p["table"] in ("XX", "XXV"):
            add(
                p["table"],
                p["row"],
                "",
                p["printed_row"],
                "mislabelled row",
                f"printed as {p['printed_row']!r}, which is the label of the row above; it is the "
                f"{p['row']!r} row",
                "",
            )

    # 8. fairness through awareness: the authors' distance is sqrt(2) for every pair
    if "authors_procedure" in combined:
        if ap.random_neighbour is None:
            raise ValueError(
                "`authors_procedure`: the source authors-procedure needs awareness_random_neighbour.csv "
                "(random_neighbour)"
            )
        aw = combined[combined["table"].isin(["XXI", "XXII", "XXIII", "XXIV"])]
        rand = ap.random_neighbour
        inside = (rand["published"] >= rand["q025"]) & (rand["published"] <= rand["q975"])
        changed = (
            f"up to {100 * ap.setups['share_changed'].max():.0f}% of people when the two vectors are stacked "
            "in the other order"
            if ap.setups is not None
            else "some people"
        )
        add(
            "XXI-XXV",
            f"all {len(aw) + len(combined[combined['table'] == 'XXV'])} printed numbers",
            "",
            "",
            "meaningless: neighbour decided by rounding",
            "the 'Mahalanobis' distance takes the covariance of the two vectors compared, (x-y)(x-y)^T/2, "
            "of rank one; with its pseudo-inverse every pair of distinct people is at distance sqrt(2), so "
            "the 'nearest' other-race person is whichever floating-point rounding favours, and changes with "
            "the set-up; whatever pairs it makes, Tables XXI-XXV test a difference between the races' "
            "prediction rates, not individual fairness. The printed counts are not what a uniformly random "
            "neighbour gives; the authors' exact search in the set-up run on every fold gives only the "
            "cells the evidence counts, and the other floating-point set-ups tried do not account for the "
            "rest (see the evidence): no computation tried gives the printed counts",
            f"only {int(inside.sum())} of {len(rand)} printed cells lie inside the 95% range of a uniformly "
            "random other-race neighbour (Monte Carlo on the authors' refits, "
            "awareness_random_neighbour.csv); the chosen "
            f"neighbour changes for {changed} (exact_search_setups.csv)" + _awareness_gaps_evidence(ap),
        )

    # 9. Table XV: another quantity than the one named
    if "authors_procedure" in combined:
        for _, p in combined[(combined["table"] == "XV") & (combined["column"] == "Disparity")].iterrows():
            if p["matches_authors_procedure"]:
                add(
                    "XV",
                    p["row"],
                    "Disparity",
                    p["published"],
                    "wrong quantity: two different classes",
                    "the printed disparity is E(S | y=1, Black) - E(S | y=0, White): the mean score of "
                    "Black people who reoffended minus that of White people who did not, which measures how "
                    "well the score separates the classes, not balance for the negative class E(S | y=1, "
                    "Black) - E(S | y=1, White)",
                    "authors-procedure (reading of compendium.printed_readings) "
                    f"{p['authors_procedure']:.4f}; the named quantity on our rerun gives {p['rerun']:.4f}",
                )

    # 10. the text against the direction of its own printed counts (Tables XX and XXV; issue 21)
    directions = printed_number_directions(
        published, battery[["table", "test", "metric", "alternative", "alpha"]]
    )
    for _, d in directions[directions["table"].isin(["XX", "XXV"])].iterrows():
        stated, where = PRINTED_VERDICTS[d["test"]][NAME_MODEL[d["model_label"]]]
        if stated in ("against Black", "against White") and d["direction"] not in ("none", stated):
            cells = published[(published["table"] == d["table"]) & (published["row"] == d["row"])]
            cells = cells.set_index("column")["published"]
            others = directions[(directions["table"] == d["table"]) & (directions["row"] != d["row"])]
            agree = others[others["direction"] == stated]
            less = "<" if int(cells["K"]) < int(cells["N-K"]) else ">"
            add(
                d["table"],
                d["row"],
                "K, N-K",
                f"{cells['K']}, {cells['N-K']}",
                "contradiction: printed counts against the text",
                f"the text says {stated} ({where}); K = {cells['K']} {less} N-K = {cells['N-K']} with "
                f"printed p {cells['P-Value']} is a difference {d['direction']} (K: people of the row's "
                "group predicted to reoffend whose other-race counterpart is not; N-K the reverse)",
                f"{len(agree)} of the table's other {len(others)} rows go {stated}; "
                "compendium.paper_b.directions.printed_number_directions, "
                "tests/compendium/test_paper_b_directions.py::test_printed_numbers_of_table_xxv_contradict_the_text_for_logistic_regression",
            )
    return pd.DataFrame(errata, columns=list(ERRATUM_COLUMNS))


def erratum_by_kind(erratum: pd.DataFrame) -> pd.DataFrame:
    """Per kind of erratum: how many printed numbers (rows) and which tables."""
    return erratum.groupby(["kind"], sort=False).agg(
        numbers=("table", "size"), tables=("table", lambda s: ", ".join(dict.fromkeys(s)))
    )


def changed_conclusions(
    erratum: pd.DataFrame, conclusions: pd.DataFrame, battery: pd.DataFrame, *, alpha: float = 0.05
) -> str:
    """The paper's conclusions that change under a correct test, as a Markdown list: the t statistics'
    square root, per source the violations lost (and found), Table XX's verdicts, calibration."""
    ratio = square_root_ratio(battery)
    k = int(ratio[["n_white", "n_black"]].to_numpy().max())
    fewer = ratio[ratio[["n_white", "n_black"]].min(axis=1) < k]
    worst = (ratio["ratio"] / ratio["expected"] - 1).abs().max()
    t_rows = erratum["kind"] == _T_ROOT
    range_note = (
        f" ({ratio['ratio'].min():.2f} to {ratio['ratio'].max():.2f} over the {len(ratio)} tests of the "
        f"sources: Table {', '.join(dict.fromkeys(fewer['table']))} has fewer fold values, folds without a "
        "false positive being left out)"
    )
    lines = [
        f"- Every printed t statistic ({int(t_rows.sum())} numbers in Tables "
        f"{', '.join(dict.fromkeys(erratum.loc[t_rows, 'table']))}) is the pooled t times 1 / sqrt(1/K_W + "
        f"1/K_B), K_W and K_B the White and Black fold values: sqrt(K/2) = {np.sqrt(k / 2):.2f} for K = {k} "
        "folds"
        + (range_note if len(fewer) else "")
        + f"; the largest relative difference from that factor is {worst:.1g}."
    ]
    concl = conclusions
    for source in concl["source"].unique():
        c = concl[concl["source"] == source]
        lost = c[c["lost_under_correct_test"].fillna(False)]
        new = c[c["new_under_correct_test"].fillna(False)]
        gone = [
            t.replace("_", " ")
            for t, g in c.groupby("test", sort=False)
            if g["violated_paper"].any()
            and g["violated_corrected"].notna().all()
            and not g["violated_corrected"].any()
        ]
        lines.append(
            f"- **{source}**: {len(lost)} of {int(c['violated_paper'].sum())} (definition, model) violations "
            "found by the paper's procedure are not violations under the correct test"
            + (f"; no model violates {', '.join(gone)} any more" if gone else "")
            + (f"; {len(new)} appear only under the correct test" if len(new) else "")
            + "."
        )
        for test, g in lost.groupby("test", sort=False):
            label = "Tables" if "+" in g["tables"].iloc[0] else "Table"
            lines.append(f"  - {test.replace('_', ' ')} ({label} {g['tables'].iloc[0]}): {models_of(g)}")
    xx = erratum[(erratum["kind"] == _XX_FORMULA) & erratum["cause"].str.contains("verdict")]
    for _, e in xx.iterrows():
        lines.append(
            f"- Table {e['table']}, {e['row']}: printed p {e['published']} (not significant); the mid-p of "
            f"Eq. 3 from the same counts is {e['evidence'].split(': ')[1].split(';')[0]}, significant at "
            f"alpha = {alpha:g}."
        )
    cal = concl[(concl["test"] == "calibration") & (concl["source"] == "rerun")]
    if len(cal):
        paper = ", ".join(MODEL_NAME[m] for m in cal.loc[cal["violated_paper"], "model"]) or "no model"
        corrected = ", ".join(
            MODEL_NAME[m] for m in cal.loc[cal["violated_corrected"].fillna(False), "model"]
        )
        lines.append(
            f"- Calibration (rerun): the paper's chi-square finds a violation for {paper}; the summed "
            f"independence test for {corrected or 'no model'}."
        )
    return "\n".join(lines)
