"""The floating-point set-up of the workflow's jobs: which OpenBLAS kernels NumPy and SciPy use.

OpenBLAS picks its kernels for the CPU it runs on (``DYNAMIC_ARCH``): AVX-512 kernels (``SkylakeX``) on a CPU
that has AVX-512, AVX2 kernels (``Haswell``) on most other x86-64 CPUs of the last decade. The kernels sum in
different orders, so the last bits of a dot product differ between them. Almost nothing in the compendium
notices, but the NIJ paper preset's logistic regression stops unconverged at L-BFGS's 100-iteration cap, and
where it stops moves with those bits (``bench/lr_spread.py``: Table I LR accuracy 0.6570 with the Haswell
kernels, 0.6551 with SkylakeX, on the same machine).

The workflow therefore runs every job with one declared kernel set, the config's ``openblas_coretype``
(default ``Haswell``, the kernels the committed results were made with), exported as ``OPENBLAS_CORETYPE``
before any job starts (OpenBLAS reads it when NumPy loads it). It is exported only where the CPU can run
those kernels (forcing AVX2 kernels on a CPU without AVX2 would stop the job with an illegal instruction);
elsewhere OpenBLAS keeps its own choice and :func:`pin_openblas_coretype` says so.
"""

from __future__ import annotations

import os
import platform
from collections.abc import MutableMapping
from pathlib import Path

__all__ = ["CORETYPE_FLAGS", "pin_openblas_coretype"]

#: OpenBLAS core types the workflow can pin, with the x86-64 CPU flags (``/proc/cpuinfo``) their kernels need
#: (OpenBLAS ``driver/others/dynamic.c``: Haswell = AVX2 + FMA, SkylakeX = AVX-512 F/BW/DQ/VL, ...).
CORETYPE_FLAGS: dict[str, frozenset[str]] = {
    "Prescott": frozenset({"sse3"}),
    "Nehalem": frozenset({"sse4_2"}),
    "SandyBridge": frozenset({"avx"}),
    "Haswell": frozenset({"avx2", "fma"}),
    "SkylakeX": frozenset({"avx512f", "avx512bw", "avx512dq", "avx512vl"}),
}


def _cpu_flags(cpuinfo: Path) -> frozenset[str]:
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


def pin_openblas_coretype(
    coretype: str | None,
    *,
    environ: MutableMapping[str, str] = os.environ,
    machine: str | None = None,
    cpuinfo: Path = Path("/proc/cpuinfo"),
) -> tuple[str | None, str]:
    """Export ``OPENBLAS_CORETYPE=coretype`` for the jobs to come, where the CPU can run those kernels.

    Parameters
    ----------
    coretype : str or None
        A key of :data:`CORETYPE_FLAGS`, or ``None`` to leave OpenBLAS's own choice.
    environ : mutable mapping
        The environment the jobs inherit (default ``os.environ``).
    machine : str, optional
        ``platform.machine()`` (a parameter for tests).
    cpuinfo : pathlib.Path
        Where the CPU flags are read (Linux ``/proc/cpuinfo``).

    Returns
    -------
    (str or None, str)
        The core type in force for the jobs (``None``: OpenBLAS's own choice) and a sentence saying why. A
        value already in ``environ`` is kept (the user's explicit choice, e.g. ``bench/lr_spread.py``'s
        set-ups); a CPU that lacks the kernels' flags, or a non-x86-64 machine, keeps OpenBLAS's choice.

    Raises
    ------
    ValueError
        ``coretype`` is not a key of :data:`CORETYPE_FLAGS`.
    """
    if coretype is not None and coretype not in CORETYPE_FLAGS:
        raise ValueError(
            f"openblas_coretype: {coretype!r} is not one of {sorted(CORETYPE_FLAGS)} "
            "(or null for OpenBLAS's choice)"
        )
    already = environ.get("OPENBLAS_CORETYPE")
    if already:
        return already, f"OPENBLAS_CORETYPE={already} was set before the run and is kept"
    if coretype is None:
        return None, "openblas_coretype is null: OpenBLAS chooses its kernels for this CPU"
    machine = platform.machine() if machine is None else machine
    if machine not in ("x86_64", "AMD64"):
        return None, f"openblas_coretype {coretype} not applied: this is a {machine} machine, not x86-64"
    missing = sorted(CORETYPE_FLAGS[coretype] - _cpu_flags(cpuinfo))
    if missing:
        return None, (
            f"openblas_coretype {coretype} not applied: this CPU lacks {', '.join(missing)}; "
            "OpenBLAS chooses its kernels, and the paper preset's logistic regression may differ from the "
            "committed results within the spread docs/reproduce.rst describes"
        )
    environ["OPENBLAS_CORETYPE"] = coretype
    return coretype, f"OPENBLAS_CORETYPE={coretype} for every job (config openblas_coretype)"
