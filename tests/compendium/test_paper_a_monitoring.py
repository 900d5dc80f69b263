"""compendium.paper_a.monitoring: the monitor's three studies (issue 27), run by rule simulate_monitoring and
read by notebooks/monitoring.ipynb. The committed tables and figures are rebuilt byte for byte from the
vendored raw data with config/config.yaml's settings (about 15 s)."""

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
from compendium.paper_a.monitoring import (
    compas_replay,
    fixed_sample_decisions,
    main,
    naive_alarms,
    null_ever_alarm,
    simulate,
    write_monitoring,
)
from fairstats import mde_rate_difference

COMMITTED = ROOT / "results" / "default" / "monitoring"


def _config():
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    return config, config["monitoring"]


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    config, spec = _config()
    data = load_preset(RAW, config["compas"]["presets"][spec["filter"]]).frame
    out = tmp_path_factory.mktemp("monitoring")
    written = write_monitoring(
        data,
        out,
        **{
            k: spec[k]
            for k in ("alpha", "n_streams", "n_batches", "batch_size", "rate", "difference", "batch_days")
        },
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


def test_simulated_counts_are_cumulative_and_split_every_batch():
    sg, ng, sr, nr = simulate(np.random.SeedSequence(3), 0.4, 7, n_streams=5, batch_size=20, rate=0.3)
    assert sg.shape == (5, 7)
    np.testing.assert_array_equal(ng + nr, np.tile(20 * np.arange(1, 8), (5, 1)))
    assert (np.diff(ng, axis=1) >= 0).all() and (sg <= ng).all() and (sr <= nr).all()


def test_the_naive_test_ever_alarms_far_more_often_than_alpha_and_the_monitor_does_not():
    _, summary = null_ever_alarm(
        np.random.SeedSequence(11), alpha=0.05, n_streams=400, n_batches=50, batch_size=100, rate=0.3
    )
    rates = dict(zip(summary["method"], summary["ever_alarm_rate"], strict=True))
    assert rates["naive z test after every batch"] > 0.15
    assert rates["monitor (confidence sequence)"] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)


def test_a_naive_alarm_is_kept_once_raised():
    sg = np.array([[30, 30, 60]])
    ng = np.array([[50, 100, 150]])
    alarms = naive_alarms(sg, ng, np.array([[10, 40, 40]]), np.array([[50, 100, 150]]), alpha=0.05)
    assert alarms.tolist() == [[True, True, True]]


@pytest.mark.parametrize(("power", "planted"), [(0.8, 0.1), (0.95, 0.05), (0.8, 0.2)])
def test_fixed_sample_decisions_is_the_smallest_n_per_group_that_detects_the_difference(power, planted):
    decisions = fixed_sample_decisions(power, planted, rate=0.3, alpha=0.05)
    n = decisions // 2
    assert decisions == 2 * n
    assert mde_rate_difference(n, n, 0.3, alpha=0.05, power=power) <= planted
    assert mde_rate_difference(n - 1, n - 1, 0.3, alpha=0.05, power=power) > planted


def test_the_replay_compares_the_three_largest_groups_with_the_first_batchs_largest():
    rng = np.random.default_rng(2)
    n = 900
    race = rng.choice(["A", "B", "C", "D"], n, p=[0.4, 0.3, 0.25, 0.05])
    compas = pd.DataFrame(
        {
            "race": race,
            "y_pred": rng.binomial(1, np.where(race == "A", 0.8, 0.3)),  # B and C rated low risk more often
            "y_true": rng.integers(0, 2, n),
            "screening_date": pd.Timestamp("2013-01-01") + pd.to_timedelta(rng.integers(0, 120, n), unit="D"),
        }
    )
    replay, changes = compas_replay(compas, alpha=0.05, batch_days=30)
    assert set(replay["group"]) | set(replay["reference"]) == {"A", "B", "C"}
    assert replay["batch"].nunique() == 4
    assert not changes.empty
    assert (changes["state"] != changes["previous_state"]).all()


def test_the_command_line_documents_every_setting(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    _, spec = _config()
    for key in spec:
        if key != "filter":
            assert f"--{key.replace('_', '-')}" in text, key


def test_the_notebook_only_reads_what_the_rule_writes():
    nb = nbformat.read(ROOT / "notebooks" / "monitoring.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code)
    source = "\n".join(c.source for c in code)
    assert set(papermill.inspect_notebook(str(ROOT / "notebooks" / "monitoring.ipynb"))) == {"results_dir"}
    assert "fairstats" not in source and "to_csv" not in source and "savefig" not in source
    tables = set(re.findall(r'show\("(\w+)"', source))
    figures = set(re.findall(r'show_figure\("(\w+)"\)', source))
    assert tables == {"null_ever_alarm", "planted_decisions", "compas_replay_changes"}
    assert figures == {"null_ever_alarm", "planted_decisions", "compas_replay"}
    assert all((COMMITTED / "tables" / f"{t}.csv").is_file() for t in tables)
    assert all((COMMITTED / "figures" / f"{f}.png").is_file() for f in figures)
