"""Downloads with checksums: the canonical URL of every vendored raw file, and how each is verified.

Every file under ``data/raw/`` is a byte copy of a blob at a pinned commit of a public GitHub repository;
:data:`SOURCES` maps its path (relative to ``data/raw``) to that URL, and ``data/raw/SHA256SUMS`` holds its
sha256. :func:`fetch` downloads to a temporary file beside the destination, checks the sha256, and only then
renames the file into place, so a failed or corrupted download leaves no file. The official NIJ dataset has no
known checksum (the portal regenerates its export); :func:`fetch_official_nij` validates it by content instead
and records the sha256 that it had.

The transfer itself uses :class:`pooch.HTTPDownloader` (requests, streamed) and the hash
:func:`pooch.file_hash`.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pandas as pd
import pooch

from compendium._files import atomic_write_text
from compendium.data import nij

__all__ = [
    "NIJ_PAPER_COMMIT",
    "NIJ_PAPER_REPO",
    "OFFICIAL_NIJ_URL",
    "PROPUBLICA_COMMIT",
    "PROPUBLICA_REPO",
    "SOURCES",
    "ChecksumError",
    "ManifestReport",
    "fetch",
    "fetch_official_nij",
    "read_manifest",
    "sha256sum",
    "verify_file",
    "verify_manifest",
]

PROPUBLICA_REPO = "propublica/compas-analysis"
#: HEAD of master when vendored; the two files last changed in c062fbb5 (2016-05-20).
PROPUBLICA_COMMIT = "bafff5da3f2e45eca6c2d5055faad269defd135a"
NIJ_PAPER_REPO = "animeshjoshi/Algorithmic-Fairness-in-Recidivism-Forecasting-Algorithms"
NIJ_PAPER_COMMIT = "f53b889ad64114faee58f4051ed19422dc3d97ef"
#: CSV export of the official NIJ full dataset (Socrata ynf5-u8nk); no checksum known in advance.
OFFICIAL_NIJ_URL = "https://data.ojp.usdoj.gov/api/views/ynf5-u8nk/rows.csv?accessType=DOWNLOAD"

#: The NIJ paper's intermediate CSVs: vendored name -> path in the authors' repository.
_AUTHORS_FILES: dict[str, str] = {
    name: name
    for name in (
        "Confusion Distribution.csv",
        "Contingencies.csv",
        "Equalized Odds Distribution.csv",
        "Fairness Metrics - All Predicted Outcome Binary Metrics from Verma Paper.csv",
        "Model Comparison.csv",
        "NPR and PPR Distribution.csv",
        "Target Data.csv",
    )
} | {
    "Y Dataframe with Probabilities - Fold 0.csv": (
        "Probability Frames/Y Dataframe with Probabilities - Fold 0.csv"
    )
}


def _raw_github(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{quote(path)}"


def _sources() -> dict[str, str]:
    out = {
        name: _raw_github(PROPUBLICA_REPO, PROPUBLICA_COMMIT, name)
        for name in ("compas-scores-two-years.csv", "compas-scores-two-years-violent.csv")
    }
    out |= {
        f"nij-paper-folds/fold_{i:03d}.csv": _raw_github(
            NIJ_PAPER_REPO, NIJ_PAPER_COMMIT, f"Folds/Fold {i}.csv"
        )
        for i in range(250)
    }
    out |= {
        f"paper-b-authors/{name}": _raw_github(NIJ_PAPER_REPO, NIJ_PAPER_COMMIT, path)
        for name, path in _AUTHORS_FILES.items()
    }
    return dict(sorted(out.items()))


#: Every vendored file (path relative to ``data/raw``, sorted) -> its download URL at a pinned commit.
SOURCES: dict[str, str] = _sources()


class ChecksumError(ValueError):
    """A file's sha256 differs from the expected one (the message names the file and both hashes)."""


def sha256sum(path: str | os.PathLike) -> str:
    """Hex sha256 of the file at ``path`` (:func:`pooch.file_hash`)."""
    return pooch.file_hash(str(path), alg="sha256")


def _sha256_iv(sha256: object) -> str:
    if not isinstance(sha256, str):
        raise TypeError(f"`sha256` must be a hex string, got {type(sha256).__name__}")
    value = sha256.strip().lower().removeprefix("sha256:")
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ValueError(f"`sha256` must be 64 hex digits, got {sha256!r}")
    return value


def verify_file(path: str | os.PathLike, sha256: str, *, name: str | None = None) -> Path:
    """Check that the file at ``path`` has the sha256 ``sha256``.

    Parameters
    ----------
    path : str or path-like
        The file.
    sha256 : str
        Expected hex digest (64 hex digits; an optional ``sha256:`` prefix is accepted).
    name : str, optional
        How to name the file in the message (default: ``path``), e.g. the URL it came from.

    Returns
    -------
    pathlib.Path
        ``path``, when the hashes agree.

    Raises
    ------
    ChecksumError
        If the hashes differ; the message names the file, the expected and the actual sha256.
    ValueError
        If ``path`` is not a file or ``sha256`` is not 64 hex digits.
    """
    expected = _sha256_iv(sha256)
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"`path`: {str(path)!r} is not a file")
    actual = sha256sum(path)
    if actual != expected:
        raise ChecksumError(
            f"checksum mismatch for {name or str(path)!r}: expected sha256 {expected}, got sha256 {actual}"
        )
    return path


def read_manifest(path: str | os.PathLike) -> dict[str, str]:
    """Read a ``sha256sum``-format manifest (``<hex>  <relative path>`` per line) into {path: sha256}.

    Raises ``ValueError`` naming the manifest and line for a malformed line or a path listed twice.
    """
    path = Path(path)
    out: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        digest, sep, name = line.partition(" ")
        if not sep or not name:
            raise ValueError(f"{str(path)!r} line {number}: expected '<sha256>  <path>', got {line!r}")
        name = name[1:] if name[:1] in (" ", "*") else name  # text ('  ') or binary (' *') mode
        try:
            digest = _sha256_iv(digest)
        except ValueError:
            raise ValueError(f"{str(path)!r} line {number}: {digest!r} is not a sha256 hex digest") from None
        if name in out:
            raise ValueError(f"{str(path)!r} line {number}: {name!r} listed twice")
        out[name] = digest
    return out


@dataclass(frozen=True)
class ManifestReport:
    """Result of :func:`verify_manifest`.

    Attributes
    ----------
    root : pathlib.Path
        The folder checked.
    files : pandas.DataFrame
        One row per listed or present file, sorted by ``path``: ``path`` (relative to ``root``), ``expected``
        (sha256 in the manifest, empty if unlisted), ``actual`` (sha256 of the file, empty if missing) and
        ``status`` (``ok``, ``mismatch``, ``missing`` or ``unlisted``).
    """

    root: Path
    files: pd.DataFrame

    @property
    def ok(self) -> bool:
        """True when every file is listed, present and matches."""
        return bool((self.files["status"] == "ok").all())

    def to_frame(self) -> pd.DataFrame:
        """The per-file table (a copy)."""
        return self.files.copy()


def verify_manifest(
    root: str | os.PathLike, *, manifest: str = "SHA256SUMS", check: bool = True
) -> ManifestReport:
    """Check every file under ``root`` against the manifest ``root/manifest``, and that listed files exist.

    Parameters
    ----------
    root : str or path-like
        The folder (``data/raw``). Every file in it but the manifest and ``README.md`` must be listed.
    manifest : str
        File name of the manifest inside ``root``.
    check : bool
        Raise on any problem (default) rather than only reporting it.

    Returns
    -------
    ManifestReport

    Raises
    ------
    ChecksumError
        If ``check`` and a file differs from its sha256 (message: file, expected and actual hash), is missing,
        or is not listed.
    """
    root = Path(root)
    listed = read_manifest(root / manifest)
    skip = {manifest, "README.md"}
    present = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).as_posix() not in skip
    )
    rows = []
    for rel in sorted(set(listed) | set(present)):
        expected = listed.get(rel, "")
        actual = sha256sum(root / rel) if (root / rel).is_file() else ""
        if not expected:
            status = "unlisted"
        elif not actual:
            status = "missing"
        else:
            status = "ok" if actual == expected else "mismatch"
        rows.append({"path": rel, "expected": expected, "actual": actual, "status": status})
    report = ManifestReport(
        root=root, files=pd.DataFrame(rows, columns=["path", "expected", "actual", "status"])
    )
    if check and not report.ok:
        bad = report.files[report.files["status"] != "ok"]
        lines = [
            f"{str(root / r.path)!r}: {r.status} "
            f"(expected sha256 {r.expected or '-'}, got sha256 {r.actual or '-'})"
            for r in bad.itertuples()
        ]
        raise ChecksumError(f"{len(bad)} file(s) under {str(root)!r} fail {manifest}:\n" + "\n".join(lines))
    return report


def _download_to_temp(url: str, dest: Path, *, timeout: float) -> Path:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    os.close(fd)
    try:
        pooch.HTTPDownloader(timeout=timeout)(url, tmp, None)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def _fetch_iv(url: object, dest: object) -> tuple[str, Path]:
    if not isinstance(url, str) or not url.startswith(("http://", "https://", "file://")):
        raise ValueError(f"`url` must be an http(s) URL, got {url!r}")
    if not isinstance(dest, str | os.PathLike):
        raise TypeError(f"`dest` must be a path, got {type(dest).__name__}")
    return url, Path(dest)


def fetch(
    url: str,
    dest: str | os.PathLike,
    *,
    sha256: str,
    force: bool = False,
    timeout: float = 60.0,
    log: str | os.PathLike | None = None,
) -> Path:
    """Download ``url`` to ``dest`` and keep it only if its sha256 is ``sha256``.

    Parameters
    ----------
    url : str
        Where to download from.
    dest : str or path-like
        Destination file; its folder is created.
    sha256 : str
        Expected hex sha256 of the file.
    force : bool
        Download even when ``dest`` already exists with the right sha256 (default: keep it, download nothing).
    timeout : float
        Seconds to wait for the server.
    log : str or path-like, optional
        A file in which to record what was done (the URL, the hashes, success or the error).

    Returns
    -------
    pathlib.Path
        ``dest``.

    Raises
    ------
    ChecksumError
        If the downloaded bytes have another sha256 (the message names the URL, the destination and both
        hashes). No file is left behind: neither the temporary file nor a new ``dest``; an existing ``dest``
        is left as it was.
    requests.HTTPError, requests.ConnectionError
        If the download fails (again leaving no file).

    Notes
    -----
    The file is written to a temporary name in ``dest``'s folder, hashed, and renamed into place with
    :func:`os.replace` (atomic on one file system) only after the check.
    """
    url, dest = _fetch_iv(url, dest)
    expected = _sha256_iv(sha256)
    lines = [f"fetch {url} -> {dest} (expected sha256 {expected})"]
    try:
        if not force and dest.is_file() and sha256sum(dest) == expected:
            lines.append("already present with this sha256: nothing downloaded")
            return dest
        tmp = _download_to_temp(url, dest, timeout=timeout)
        try:
            verify_file(tmp, expected, name=f"{dest} (downloaded from {url})")
            os.replace(tmp, dest)
        finally:
            tmp.unlink(missing_ok=True)
        lines.append("downloaded, sha256 ok")
        return dest
    except BaseException as exc:
        lines.append(f"failed, no file written: {type(exc).__name__}: {exc}")
        raise
    finally:
        if log is not None:
            atomic_write_text(log, "\n".join(lines) + "\n")


def fetch_official_nij(
    url: str = OFFICIAL_NIJ_URL,
    dest: str | os.PathLike = "data/interim/external/nij-official.csv",
    *,
    expected_rows: int | None = nij.OFFICIAL_N_ROWS,
    timeout: float = 300.0,
    log: str | os.PathLike | None = None,
) -> Path:
    """Download the official NIJ full dataset, validate it by content, and record the sha256 that it had.

    Parameters
    ----------
    url : str
        The CSV export (default :data:`OFFICIAL_NIJ_URL`).
    dest : str or path-like
        Destination of the CSV. ``<dest>.sha256`` is written beside it in ``sha256sum`` format.
    expected_rows : int, optional
        Number of data rows to require (default: :data:`compendium.data.nij.OFFICIAL_N_ROWS`, 25,835;
        ``None``: any).
    timeout : float
        Seconds to wait for the server.
    log : str or path-like, optional
        A file in which to record what was done (the URL, the sha256 and row count, or the error).

    Returns
    -------
    pathlib.Path
        ``dest``.

    Raises
    ------
    ValueError
        From :func:`compendium.data.nij.read_official` (naming the file, column and value) when the content
        is not the official layout; no file is left behind.
    """
    url, dest = _fetch_iv(url, dest)
    lines = [f"fetch {url} -> {dest} (official NIJ dataset, validated by content)"]
    try:
        tmp = _download_to_temp(url, dest, timeout=timeout)
        try:
            try:
                table = nij.read_official(tmp, expected_rows=expected_rows)
            except ValueError as exc:
                raise ValueError(f"download of {url!r} is not the official NIJ dataset: {exc}") from exc
            digest = sha256sum(tmp)
            os.replace(tmp, dest)
        finally:
            tmp.unlink(missing_ok=True)
        atomic_write_text(dest.with_name(dest.name + ".sha256"), f"{digest}  {dest.name}\n")
        lines.append(f"ok: {len(table)} rows, sha256 {digest}")
        return dest
    except BaseException as exc:
        lines.append(f"failed, no file written: {type(exc).__name__}: {exc}")
        raise
    finally:
        if log is not None:
            atomic_write_text(log, "\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Command line ``python -m compendium.data.download --url URL --sha256 HEX DEST`` (the workflow's)."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m compendium.data.download",
        description="Download URL to DEST; keep it only if its sha256 matches (no file is left otherwise).",
    )
    parser.add_argument("dest", help="destination file")
    parser.add_argument("--url", required=True, help="where to download from")
    parser.add_argument("--sha256", required=True, help="expected sha256 (64 hex digits)")
    parser.add_argument("--force", action="store_true", help="download even if DEST already matches")
    args = parser.parse_args(argv)
    path = fetch(args.url, args.dest, sha256=args.sha256, force=args.force)
    print(f"ok: {path} (sha256 {_sha256_iv(args.sha256)}) from {args.url}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
