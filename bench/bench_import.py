"""import fairstats vs import pandas, scipy.stats: each in a fresh interpreter, best of N (goal <= 1.5x).

Heavy optional modules (matplotlib, seaborn, pyarrow, engines) are imported inside the functions that need
them, so the library's import costs little more than its two foundations. Which modules `import fairstats`
loads is checked by tests/library/test_public_api.py (a count, not a time); the time lives here.
"""

from __future__ import annotations

import subprocess
import sys
import time

from _common import detail, emit, parser, row


def _fresh_import(statement: str, *, repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", statement], check=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    args = parser("import", __doc__.splitlines()[0]).parse_args()
    repeat = 3 if args.quick else 9
    # interleave, so that a change of load on a shared machine weighs on both sides alike
    ours, reference, empty = [], [], []
    for _ in range(repeat):
        ours += _fresh_import("import fairstats", repeat=1)
        reference += _fresh_import("import pandas, scipy.stats", repeat=1)
        empty += _fresh_import("pass", repeat=1)
    name = "import fairstats vs import pandas, scipy.stats"
    rows = [
        row(
            name,
            ours_s=min(ours),
            reference="import pandas, scipy.stats (fresh interpreter)",
            reference_s=min(reference),
            floor=True,
            goal="<= 1.5x the reference",
            met=min(ours) <= 1.5 * min(reference),
        )
    ]
    details = [detail(name, "repeats", repeat),
               detail(name, "interpreter start-up (python -c pass)", min(empty), "s")]
    details += [detail(name, "median ratio", sorted(ours)[repeat // 2] / sorted(reference)[repeat // 2])]
    emit(args.json, rows, details)


if __name__ == "__main__":
    main()
