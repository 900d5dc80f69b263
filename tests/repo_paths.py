"""Where the tests find the repository's files: the same paths on both sides (library and compendium).

The library's tests run from this checkout against the fairstats wheel installed alone in a fresh venv
(``make test``), so they read the repository's data and fixtures from here, never through the compendium.
Importable as ``repo_paths`` from every test: ``tests/`` holds the one ``conftest.py`` and is not a package,
so pytest puts it on ``sys.path`` (its default "prepend" import mode).
"""

from pathlib import Path

#: The repository's root (``tests/..``).
ROOT = Path(__file__).resolve().parents[1]
#: The sources: ``src/fairstats`` (the library) and ``src/compendium`` (the papers).
SRC = ROOT / "src"
#: Vendored public inputs (``data/raw``, never edited).
RAW = ROOT / "data" / "raw"
#: The papers' printed numbers, transcribed (``data/published``).
PUBLISHED = ROOT / "data" / "published"
#: The workflow's configuration.
CONFIG = ROOT / "config" / "config.yaml"
#: Small committed inputs of the tests, each with a ``.md`` saying where it comes from.
FIXTURES = ROOT / "tests" / "fixtures"
#: COMPAS violent after ProPublica's filter (preset ``propublica_violent``; tests/fixtures/compas-violent.md).
COMPAS_VIOLENT = FIXTURES / "compas-violent.csv"
#: Columns of :data:`COMPAS_VIOLENT`, in order.
COMPAS_VIOLENT_COLUMNS = ["id", "sex", "race", "age_cat", "y_true", "y_pred", "y_score"]
