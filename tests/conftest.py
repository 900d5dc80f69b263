"""Test-wide settings, paths and fixtures, for both sides of the suite.

Layout (issue 24): the tests are split by what they test.

* ``tests/library/`` — the fairstats library: imports fairstats (and no compendium module: guarded by
  ``tests/library/test_no_compendium_import.py``), so it runs against the wheel installed alone in a fresh
  venv; ``make test`` does exactly that (``.ci/library-tests.sh``). Its ``reference/`` holds the statistics'
  reference values (R, published worked examples), its ``property/`` the hypothesis properties.
* ``tests/compendium/`` — the papers' compendium, the workflow and the repository's checks (lint, lock,
  environment): runs in the compendium's venv. Its ``reference/`` holds the papers' printed numbers against
  ours and the authors' files, its ``workflow/`` the Snakemake and notebook runs (dry run, lint, tiny
  end-to-end runs, the wheel, the docs, the site in a browser).

Shared by both: ``tests/repo_paths.py`` (the repository's paths: :data:`repo_paths.ROOT` and friends,
importable as ``from repo_paths import ROOT`` because this folder is on ``sys.path``), ``tests/people.py``
(random people for the two-group functions), ``tests/fixtures/`` (small committed inputs, each with its
provenance), and the fixtures below.

Hypothesis: the registered profile ``fairstats`` (the default) is derandomized (the same examples on every run
and machine), has no deadline (the machine is shared), draws 50 examples unless a test asks for its own
number with ``@settings(max_examples=...)``, and writes no example database. ``HYPOTHESIS_PROFILE=thorough``
draws 20x as many for a local search (issue 29).
"""

import os

import pandas as pd
import pytest
from hypothesis import HealthCheck, settings
from repo_paths import COMPAS_VIOLENT, COMPAS_VIOLENT_COLUMNS, ROOT

settings.register_profile(
    "fairstats",
    derandomize=True,
    deadline=None,
    max_examples=50,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
settings.register_profile("thorough", parent=settings.get_profile("fairstats"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fairstats"))


@pytest.fixture(scope="session")
def root():
    """The repository's root (:data:`repo_paths.ROOT`)."""
    return ROOT


@pytest.fixture(scope="session")
def compas_violent() -> pd.DataFrame:
    """COMPAS violent after ProPublica's filter (4,020 people; tests/fixtures/compas-violent.md).

    ``id, sex, race, age_cat, y_true, y_pred, y_score``: what the compendium's preset ``propublica_violent``
    gives (checked by tests/compendium/test_fixtures.py), read without the compendium. One frame for the
    session: select columns (a copy) before changing anything.
    """
    frame = pd.read_csv(COMPAS_VIOLENT)
    assert list(frame.columns) == COMPAS_VIOLENT_COLUMNS, f"{COMPAS_VIOLENT}: columns {list(frame.columns)}"
    return frame
