"""fairstats' public API: ``__all__`` names the library only, every name is documented, the import is light,
and the library never reaches into the compendium (src/compendium) or the workflow."""

import ast
import importlib
import inspect
import json
import re
import subprocess
import sys
import types
import typing

import pytest
from repo_paths import ROOT

import fairstats
from fairstats._deprecation import REMOVAL, REMOVED, RENAMED, RENAMED_KEYWORDS
from fairstats._result import Result

LIBRARY = ROOT / "src" / "fairstats"

# Paper-specific helpers that once were in the fairstats namespace (issue 13; the last three issue 24); they
# live in compendium now (compendium.paper_b.as_published, compendium.paper_b.verdicts).
PAPER_HELPERS = {"authors_battery", "read_published_b", "published_vs_reproduced_rerun", "battery_tables",
                 "load_preset", "filter_compas", "build_site", "fit_predict_folds",
                 "mcnemar_midp_as_published", "verdict_table", "fold_ttest_as_published"}
# Modules `import fairstats` must not load: plotting, the report, parquet, models, workflow, notebooks.
HEAVY = {"matplotlib", "seaborn", "pyarrow", "jinja2", "mistune", "sklearn", "xgboost", "snakemake",
         "papermill", "nbconvert", "IPython", "jupyter_client", "compendium", "duckdb", "narwhals", "pyspark"}
# What `import fairstats` may add to `import pandas, scipy.stats` (statsmodels: contingency tables and
# multiplicity; threadpoolctl: awareness caps BLAS threads; packaging and patsy come with statsmodels).
ALLOWED_EXTRA = {"fairstats", "statsmodels", "threadpoolctl", "packaging", "patsy"}


def test_all_is_explicit_sorted_and_complete():
    names = fairstats.__all__
    assert isinstance(names, list) and names == sorted(names, key=str.lower)
    assert len(set(names)) == len(names)
    for name in names:
        assert hasattr(fairstats, name), name
    public = {n for n, v in vars(fairstats).items()
              if not n.startswith("_") and not isinstance(v, types.ModuleType)}
    assert public == set(names), f"public but not in __all__: {public - set(names)}"


def test_all_names_only_the_library():
    assert not PAPER_HELPERS & set(fairstats.__all__)
    for name in fairstats.__all__:
        module = getattr(getattr(fairstats, name), "__module__", "fairstats") or "fairstats"
        if callable(getattr(fairstats, name)):
            assert module.startswith("fairstats."), f"{name} comes from {module}"


def test_every_public_function_and_class_is_documented():
    for name in fairstats.__all__:
        obj = getattr(fairstats, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            doc = inspect.getdoc(obj) or ""
            assert len(doc.splitlines()[0]) > 10, f"{name} has no summary line"


def test_the_library_never_imports_the_compendium_or_the_workflow():
    for path in sorted(LIBRARY.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                assert top not in {"compendium", "snakemake", "papermill", "sklearn", "xgboost"}, (
                    f"{path.relative_to(ROOT)}:{node.lineno} imports {module}"
                )


def test_import_fairstats_loads_no_heavy_module():
    # a fresh interpreter: which top-level packages does `import fairstats` add to pandas + scipy.stats?
    code = (
        # statsmodels (0.15, statsmodels.tools.data) imports polars whenever it is installed, as it is here
        # for the fairstats[polars] tests: polars belongs to the baseline, not to what fairstats adds
        "import json, sys; import pandas, scipy.stats\ntry:\n import polars\nexcept ImportError:\n pass\n"
        "base = set(sys.modules); import fairstats; "
        "print(json.dumps(sorted({m.split('.')[0] for m in set(sys.modules) - base})))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    added = set(json.loads(res.stdout))
    assert not added & HEAVY, f"import fairstats loads {sorted(added & HEAVY)}"
    assert added <= ALLOWED_EXTRA, f"import fairstats loads {sorted(added - ALLOWED_EXTRA)} beyond the core"


@pytest.mark.parametrize("qualified", sorted(REMOVED))
def test_a_removed_name_says_where_it_went(qualified):
    module, _, name = qualified.rpartition(".")
    said = rf"^{re.escape(qualified)} was removed: .*compendium\.paper_b\.calibration.*"
    with pytest.raises(AttributeError, match=said + r"fairstats\.calibration_independence_test$"):
        getattr(importlib.import_module(module), name)
    with pytest.raises(AttributeError, match=r"^module 'fairstats' has no attribute 'no_such_name'$"):
        fairstats.no_such_name  # noqa: B018


def _lookup(qualified: str) -> object:
    module, _, name = qualified.rpartition(".")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_a_renamed_name_works_for_one_release_and_warns_where_it_went(old):
    new = RENAMED[old]
    said = rf"^{re.escape(old)} is deprecated since fairstats 0\.3 and goes in {REMOVAL}: use "
    said += re.escape(new) + "$"
    with pytest.warns(DeprecationWarning, match=said) as caught:
        value = _lookup(old)
    assert value is _lookup(new)
    assert caught[0].filename == __file__  # the warning points at the line that used the old name


def test_from_import_of_a_renamed_name_warns_too():
    with pytest.warns(DeprecationWarning, match="use fairstats.search.SEARCH_COLUMNS"):
        from fairstats import SEARCH_COLUMNS  # noqa: F401
    with pytest.warns(DeprecationWarning, match="use fairstats.ordinal.LinearByLinearResult"):
        from fairstats.ordinal import OrdinalAssociationResult  # noqa: F401


def test_the_new_names_are_public_and_the_old_ones_are_not():
    for old, new in RENAMED.items():
        module, _, name = new.rpartition(".")
        if module == "fairstats":
            assert name in fairstats.__all__, new
        else:
            assert name in importlib.import_module(module).__all__, new
        assert old.rpartition(".")[2] not in vars(importlib.import_module(old.rpartition(".")[0])), old


def test_a_renamed_keyword_is_out_of_the_signature_and_the_new_one_in():
    assert RENAMED_KEYWORDS, "the decorator registers what it renames"
    for where, renames in RENAMED_KEYWORDS.items():
        func = _lookup(where)
        parameters = inspect.signature(func).parameters
        for old, new in renames.items():
            assert new in parameters and old not in parameters, where
        assert func.__name__ in fairstats.__all__ and getattr(fairstats, func.__name__) is func


def test_every_test_returns_a_result():
    """A public function named ``*_test`` or ``*_tests`` returns a result object, by its annotation (issue 38:
    no bare DataFrame; ``ordinal_shift_tests`` was the last)."""
    functions = [n for n in fairstats.__all__ if inspect.isfunction(getattr(fairstats, n))]
    tests = [n for n in functions if re.search(r"_tests?$", n)]
    assert "ordinal_shift_tests" in tests and len(tests) >= 10
    for name in tests:
        returned = typing.get_type_hints(getattr(fairstats, name)).get("return")
        assert isinstance(returned, type) and issubclass(returned, Result), f"{name} returns {returned}"
