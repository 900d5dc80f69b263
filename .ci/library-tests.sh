#!/usr/bin/env bash
# The library's tests (tests/library/) against the fairstats wheel installed alone in a fresh venv.
#
#   bash .ci/library-tests.sh PYTHON [pytest arguments...]     e.g.  bash .ci/library-tests.sh .venv/bin/python -m "not slow"
#
# PYTHON is the compendium's venv (`make env`): it builds the wheel from a copy of the library's own files
# (pyproject.toml, README.md, LICENSE, src/fairstats; its setuptools, no build isolation, so no network) and
# provides uv. The fresh venv (.venv/library-tests/, remade every run) gets the wheel with its extras [audit],
# [polars], [spark] and [test], every version constrained by requirements/compendium.lock.txt (uv's cache, or
# the package registry when the cache lacks a file; UV_OFFLINE=1 forbids the registry). Nothing of the
# compendium is installed there and src/ is not on the path, so a library test that needs the compendium fails.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${1:?usage: bash .ci/library-tests.sh PYTHON [pytest arguments...]}"
shift
root="$PWD"
venv="$root/.venv/library-tests"
uv="$(dirname "$python")/uv"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/source/src"
cp pyproject.toml README.md LICENSE "$work/source/"
cp -R src/fairstats "$work/source/src/fairstats"
find "$work/source" -name __pycache__ -prune -exec rm -rf {} +
"$python" -m pip wheel --quiet --no-deps --no-build-isolation --wheel-dir "$work/dist" "$work/source"
wheel="$(ls "$work"/dist/fairstats-*.whl)"

rm -rf "$venv"
"$uv" venv --quiet --python "$python" "$venv"
"$uv" pip install --quiet --python "$venv/bin/python" "fairstats[audit,polars,spark,test] @ file://$wheel" \
    -c requirements/compendium.lock.txt
# the fairstats under test is the wheel's, and the compendium is not importable
"$venv/bin/python" - "$venv" <<'PY'
import importlib.util, pathlib, sys
import fairstats
where = pathlib.Path(fairstats.__file__).resolve()
assert pathlib.Path(sys.argv[1]).resolve() in where.parents, f"fairstats from {where}, not the wheel"
assert importlib.util.find_spec("compendium") is None, "the compendium is importable beside the wheel"
print(f"library tests: fairstats {fairstats.__version__} from {where.parent}")
PY
exec "$venv/bin/python" -m pytest "$@" tests/library
