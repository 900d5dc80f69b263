#!/bin/sh
# After the lock (pip install --require-hashes --no-deps -r requirements/compendium.lock.txt): install the
# fairstats library from this checkout (editable, no dependencies: the lock brought them) and make the
# compendium importable. The compendium (src/compendium) is not a distribution: it is the papers' code, run
# from this checkout only, so a path entry (compendium.pth in site-packages, naming src/) is all it needs.
# Usage: sh requirements/install-project.sh PYTHON   (run from the repository's root)
set -eu
python="${1:-python}"
"$python" -m pip install --quiet --no-deps --no-build-isolation -e .
"$python" - <<'PY'
import pathlib
import sysconfig

src = pathlib.Path("src").resolve()
assert (src / "compendium" / "__init__.py").is_file(), f"run from the repository's root (no {src}/compendium)"
pth = pathlib.Path(sysconfig.get_path("purelib")) / "compendium.pth"
pth.write_text(f"{src}\n")
print(f"compendium: {pth} -> {src}")
PY
