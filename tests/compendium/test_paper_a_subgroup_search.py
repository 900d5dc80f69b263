"""compendium.paper_a.subgroup_search: the COMPAS subgroup search and its null simulation (issue 17 B), run
by rule search_compas_subgroups and read by notebooks/compas_subgroup_search.ipynb. The committed tables and
figures are rebuilt byte for byte from the vendored raw data with config/config.yaml's settings (about
20 s)."""

from __future__ import annotations

import re

import nbformat
import numpy as np
import pandas as pd
import papermill
import pytest
import yaml
from repo_paths import CONFIG, RAW, ROOT

from compendium.data.compas import load_preset
from compendium.paper_a.subgroup_search import (
    FPR_COLUMNS,
    attribute_sizes,
    fpr_disparities,
    main,
    null_simulation,
    null_summary,
    write_subgroup_search,
)

COMMITTED = ROOT / "results" / "default" / "compas" / "subgroup_search"


def _search_config():
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    return config, config["compas"]["search"]


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    config, spec = _search_config()
    data = load_preset(RAW, config["compas"]["presets"][spec["filter"]]).frame
    out = tmp_path_factory.mktemp("subgroup_search")
    written = write_subgroup_search(
        data,
        out,
        filter_name=spec["filter"],
        attributes=spec["attributes"],
        max_depth=spec["max_depth"],
        min_size=spec["min_size"],
        metrics=spec["metrics"],
        alpha=spec["alpha"],
        n_resamples=spec["n_resamples"],
        n_null=spec["n_null"],
        n_null_resamples=spec["n_null_resamples"],
        seed=config["seed"],
    )
    return out, written


def test_the_committed_tables_and_figures_are_rebuilt_byte_for_byte(rebuilt):
    out, written = rebuilt
    produced = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    committed = sorted(
        p.relative_to(COMMITTED).as_posix()
        for p in COMMITTED.rglob("*")
        if p.is_file() and p.parent.name != "notebooks"
    )
    assert produced == committed
    assert len(produced) == 2 * len(written)  # each table with its Markdown, each figure with its PDF
    different = [name for name in produced if (out / name).read_bytes() != (COMMITTED / name).read_bytes()]
    assert not different, different


def test_the_summary_counts_the_verdicts_of_the_committed_search():
    summary = pd.read_csv(COMMITTED / "tables" / "subgroup_search_summary.csv").iloc[0]
    table = pd.read_csv(COMMITTED / "tables" / "subgroups.csv")
    counts = table["verdict"].value_counts()
    assert summary["comparisons_defined"] + summary["undefined"] == len(table)
    assert summary["subgroups"] == table["subgroup"].nunique()
    assert [summary[v] for v in ("disparity", "inconclusive", "undefined")] == [
        counts.get(v, 0) for v in ("disparity", "inconclusive", "undefined")
    ]
    warned = pd.read_csv(COMMITTED / "tables" / "subgroup_search_warnings.csv")
    assert (warned["category"] == "UndefinedTestWarning").sum() == (summary["undefined"] > 0)


def test_sizes_count_people_by_value_of_each_attribute():
    data = pd.DataFrame({"sex": ["F", "M", "M", "M"], "race": ["a", "a", "b", "a"]})
    sizes = attribute_sizes(data, ["sex", "race"])
    assert sizes.to_dict("records") == [
        {"attribute": "sex", "value": "M", "people": 3},
        {"attribute": "sex", "value": "F", "people": 1},
        {"attribute": "race", "value": "a", "people": 3},
        {"attribute": "race", "value": "b", "people": 1},
    ]


def test_fpr_disparities_keep_the_fpr_rows_with_a_disparity_in_order():
    table = pd.DataFrame(
        {
            "subgroup": ["a", "b", "c", "d"],
            "metric": ["fpr", "ppr", "fpr", "fpr"],
            "verdict": ["disparity", "disparity", "inconclusive", "disparity"],
            **{c: [1, 2, 3, 4] for c in FPR_COLUMNS if c != "subgroup"},
        }
    )
    found = fpr_disparities(table)
    assert list(found["subgroup"]) == ["a", "d"]
    assert list(found.columns) == FPR_COLUMNS


def test_with_no_link_the_adjusted_minimum_p_is_rarely_below_alpha_and_the_unadjusted_often():
    rng = np.random.default_rng(5)
    n = 600
    data = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", "z"], n),
            "b": rng.choice(["u", "v"], n),
            "c": rng.choice(["p", "q", "r", "s"], n),
            "y_true": rng.integers(0, 2, n),
            "y_pred": rng.integers(0, 2, n),
        }
    )
    null = null_simulation(
        data,
        ["a", "b", "c"],
        metrics=["fpr", "fnr", "ppr"],
        max_depth=2,
        min_size=20,
        alpha=0.05,
        n_null=20,
        n_null_resamples=99,
        rng=np.random.default_rng(1),
    )
    assert list(null["dataset"]) == list(range(20))
    assert (null["min_pvalue_adjusted"] >= null["min_pvalue"]).all()
    summary = null_summary(null, alpha=0.05)
    share = dict(zip(summary["p_value"], summary["share"], strict=True))
    assert share["Westfall-Young adjusted minimum p"] <= 0.2
    assert share["unadjusted (normal approximation) minimum p"] >= 0.5
    assert (summary["ci_low"] <= summary["share"]).all() and (summary["share"] <= summary["ci_high"]).all()


def test_the_command_line_documents_every_setting(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    _, spec = _search_config()
    for key in ("max_depth", "min_size", "metrics", "alpha", "n_resamples", "n_null", "n_null_resamples"):
        assert f"--{key.replace('_', '-')}" in text, key


def test_the_notebook_only_reads_what_the_rule_writes():
    nb = nbformat.read(ROOT / "notebooks" / "compas_subgroup_search.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    source = "\n".join(c.source for c in code)
    assert set(papermill.inspect_notebook(str(ROOT / "notebooks" / "compas_subgroup_search.ipynb"))) == {
        "results_dir"
    }
    assert "fairstats" not in source and "to_csv" not in source and "savefig" not in source
    tables = set(re.findall(r'read\("(\w+)"\)', source)) | {"subgroup_search_summary"}
    figures = set(re.findall(r'show_figure\("(\w+)"\)', source))
    assert tables and figures
    assert all((COMMITTED / "tables" / f"{t}.csv").is_file() for t in tables), tables
    assert all((COMMITTED / "figures" / f"{f}.png").is_file() for f in figures), figures
