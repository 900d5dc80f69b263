"""The output folder of ``fairstats audit``: it only ever replaces files it wrote itself.

Every audit folder holds a manifest (:data:`MANIFEST`, JSON) listing the files the audit wrote with their
SHA-256. :func:`check_out_folder` accepts ``--out`` only when it is new, empty, or an earlier audit's folder
that holds exactly the files of its manifest, unchanged; it refuses (:class:`~fairstats.auditing.AuditError`,
exit 2, nothing touched) a file, a folder holding anything else, a read-only folder, a dangling symbolic
link, and an input file inside ``--out``. A symbolic link to a folder stays a link: the audit replaces the
folder it points to. The audit is built in a hidden work folder beside ``--out`` (its name carries the process
id) and swapped into place at the end; leftovers of a killed run are removed by the next run.

The clean-up removes only what this tool created, as recorded: a work folder holding the marker file
(:data:`WORK_MARKER`) that :func:`new_work_folder` wrote into it, naming this ``--out`` and the process, a
regular file and no symbolic link; or an earlier audit moved aside during the swap (its manifest lists
exactly its files, unchanged); in both cases only when that process is gone. A folder of the user's that
merely has a work folder's name is never touched. A work folder's name stays within the file system's limit
on names (:data:`NAME_MAX` bytes) whenever ``--out``'s does: a long name is shortened and a hash added.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path

from fairstats._version import __version__
from fairstats.auditing.errors import AuditError
from fairstats.auditing.writing import file_sha256

__all__ = [
    "checked_out",
    "write_folder",
    "write_tables",
    "MANIFEST",
    "NAME_MAX",
    "WORK_MARKER",
    "OutFolderError",
    "check_out_folder",
    "discard_own",
    "new_work_folder",
    "process_alive",
    "swap_into_place",
]

#: The manifest every audit folder holds: ``{"fairstats": version, "files": {name: sha256}}``.
MANIFEST = ".fairstats-audit"


#: The marker file inside a work folder this tool made: ``{"fairstats-work": target, "pid": pid}`` (JSON).
WORK_MARKER = ".fairstats-work"
#: The longest file name (bytes) of common file systems (ext4, XFS, APFS, NTFS in UTF-16 units).
NAME_MAX = 255


class OutFolderError(ValueError):
    """``--out`` cannot be used without touching files the audit did not write (exit status 2)."""


def _read_only(path: Path) -> bool:
    """No write permission bit at all, or no write access for this process (root ignores the bits)."""
    return not (path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)) or not os.access(
        path, os.W_OK
    )


def _manifest(folder: Path) -> dict[str, str] | None:
    try:
        record = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = record["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return None
    return files


def _foreign(folder: Path) -> str | None:
    """Why ``folder`` holds something the audit did not write (None: only its manifest's files)."""
    entries = sorted(p.name for p in folder.iterdir())
    if not entries:
        return None
    files = _manifest(folder)
    if files is None:
        return f"holds {entries[0]!r} and no audit manifest ({MANIFEST})"
    for name in entries:
        path = folder / name
        if name == MANIFEST:
            continue
        if name not in files or path.is_symlink() or not path.is_file():
            return f"holds {name!r}, which an earlier audit did not write"
        if file_sha256(path) != files[name]:
            return f"holds {name!r}, changed since the audit wrote it"
        if _read_only(path):
            return f"holds {name!r}, which is read-only"
    return None


def check_out_folder(out: Path, *, inputs: tuple[Path, ...] = ()) -> Path:
    """The folder the audit may write to ``out`` (a symbolic link's target); raise :class:`OutFolderError`.

    Parameters
    ----------
    out : pathlib.Path
        ``--out`` as given.
    inputs : tuple of pathlib.Path
        Files the audit reads; none may lie inside ``out``.
    """
    shown = str(out)
    target = out
    if out.is_symlink():
        if not out.exists():
            raise OutFolderError(f"--out {shown!r} is a symbolic link to nothing; choose a folder")
        target = out.resolve()
    if target.exists() and not target.is_dir():
        raise OutFolderError(f"--out {shown!r} exists and is a file, not a folder")
    real = target.resolve()
    for path in inputs:
        if path.exists() and path.resolve().is_relative_to(real):
            raise OutFolderError(
                f"the input {str(path)!r} lies inside --out {shown!r}; the audit would replace it: "
                "choose another --out"
            )
    if target.is_dir():
        if _read_only(target):
            raise OutFolderError(f"--out {shown!r} is read-only; the audit does not replace it")
        why = _foreign(target)
        if why is not None:
            raise OutFolderError(
                f"--out {shown!r} {why}; the audit only replaces its own files: choose a new folder"
            )
    parent = real.parent
    if parent.is_dir() and _read_only(parent):
        raise OutFolderError(f"--out {shown!r}: its folder {str(parent)!r} is read-only")
    return real


_WORK = re.compile(r"^\.(?P<name>.+)\.fairstats-(?P<kind>work|old)-(?P<pid>\d+)-[A-Za-z0-9_]+$")


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (signal 0; one owned by another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stem(target: Path) -> str:
    """The part of a work folder's name that names ``target``: its name, or (when a work folder's name would
    pass :data:`NAME_MAX` bytes) its first characters and a hash of the whole name."""
    name = target.name
    room = NAME_MAX - len(".") - len(".fairstats-work--") - 10 - 12  # pid (<= 10 digits), mkdtemp's 8 + slack
    if len(name.encode("utf-8")) <= room:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    short = name.encode("utf-8", "surrogateescape")[: room - 17].decode("utf-8", "ignore")
    return f"{short}~{digest}"


def _marker(path: Path) -> dict | None:
    marker = path / WORK_MARKER
    try:
        if marker.is_symlink() or not marker.is_file():
            return None
        record = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def _ours(path: Path, target: Path, kind: str, pid: int) -> bool:
    """Did a run of this tool for ``target`` create ``path`` (recorded, see the module)?"""
    if kind == "work":
        record = _marker(path)
        if record is None:  # made by mkdtemp, killed before its marker was in place: empty, or the marker
            # still under its temporary name (written whole, then renamed: never a torn marker)
            return {p.name for p in path.iterdir()} <= {WORK_MARKER + ".tmp"}
        return record.get("fairstats-work") == str(target) and record.get("pid") == pid
    return _manifest(path) is not None and _foreign(path) is None  # an earlier audit, as it wrote it


def _clean_leftovers(target: Path) -> None:
    """Remove the work folders of earlier runs for ``target`` whose process is gone (SIGKILL), and only those
    this tool created (see the module)."""
    parent = target.parent
    if not parent.is_dir():
        return
    stem = _stem(target)
    for path in sorted(parent.iterdir()):
        match = _WORK.match(path.name)
        if not match or match["name"] != stem or path.is_symlink() or not path.is_dir():
            continue
        pid = int(match["pid"])
        if pid == os.getpid() or process_alive(pid):
            continue
        with contextlib.suppress(OSError):
            if _ours(path, target, match["kind"], pid):
                shutil.rmtree(path, ignore_errors=True)


def new_work_folder(target: Path) -> Path:
    """A hidden work folder beside ``target`` (same file system, so the final swap is a rename), holding the
    marker :data:`WORK_MARKER` that records who made it.

    Leftover work folders of killed runs for the same ``target`` are removed first.
    """
    _clean_leftovers(target)
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=parent, prefix=f".{_stem(target)}.fairstats-work-{os.getpid()}-"))
    record = {"fairstats-work": str(target), "pid": os.getpid()}
    (tmp / (WORK_MARKER + ".tmp")).write_text(json.dumps(record, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp / (WORK_MARKER + ".tmp"), tmp / WORK_MARKER)  # the marker appears whole or not at all
    umask = os.umask(0)
    os.umask(umask)
    tmp.chmod(0o777 & ~umask)
    return tmp


def write_manifest(folder: Path) -> None:
    """List every file in ``folder`` with its SHA-256 in the manifest."""
    files = {p.name: file_sha256(p) for p in sorted(folder.iterdir()) if p.name != MANIFEST}
    record = {"fairstats": __version__, "files": files}
    (folder / MANIFEST).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def swap_into_place(tmp: Path, target: Path) -> None:
    """Put the finished work folder ``tmp`` at ``target``, replacing an earlier audit there.

    ``target`` is checked again just before (files may have appeared during the run); on any failure the
    earlier audit stays as it was.
    """
    (tmp / WORK_MARKER).unlink(missing_ok=True)
    write_manifest(tmp)
    if target.exists():
        why = _foreign(target)
        if why is not None:
            raise OutFolderError(
                f"--out {str(target)!r} {why} (it changed during the run); nothing was replaced"
            )
        backup = Path(
            tempfile.mkdtemp(dir=target.parent, prefix=f".{_stem(target)}.fairstats-old-{os.getpid()}-")
        )
        backup.rmdir()
        os.replace(target, backup)
        try:
            os.replace(tmp, target)
        except BaseException:
            os.replace(backup, target)
            raise
        shutil.rmtree(backup, ignore_errors=True)
    else:
        os.replace(tmp, target)


def discard(tmp: Path) -> None:
    """Remove a work folder after a failed or interrupted run."""
    with contextlib.suppress(OSError):
        shutil.rmtree(tmp)


def discard_own(target: Path) -> None:
    """Remove every work folder this process made for ``target``: what a failed or interrupted run leaves,
    wherever it stopped (a signal between :func:`new_work_folder`'s ``mkdtemp`` and its return leaves a
    folder whose name the caller never received)."""
    prefix = f".{_stem(target)}.fairstats-work-{os.getpid()}-"
    with contextlib.suppress(OSError):
        for folder in list(target.parent.iterdir()):
            if folder.name.startswith(prefix):
                discard(folder)


# ----------------------------------------------------------------------------------------------------
# what every task's save() uses
# ----------------------------------------------------------------------------------------------------


def write_folder(out: Path, inputs: tuple[Path, ...], write, *, target: Path | None = None):
    """Run ``write(work_folder)`` and put the work folder at ``out`` only if it succeeded (all or nothing);
    ``target``: ``out`` already checked (:func:`check_out_folder`). Returns what ``write`` returned."""
    if target is None:
        target = checked_out(out, inputs)
    try:
        tmp = new_work_folder(target)
        value = write(tmp)
        swap_into_place(tmp, target)
    except OutFolderError as err:
        discard_own(target)
        raise AuditError(str(err)) from None
    except BaseException:  # an interrupt may come while the work folder is being made: every one of ours
        discard_own(target)
        raise
    return value


def checked_out(out: Path, inputs: tuple[Path, ...]) -> Path:
    """The folder the audit may write at ``out`` (:func:`check_out_folder`), or :class:`AuditError`."""
    try:
        return check_out_folder(out, inputs=inputs)
    except OutFolderError as err:
        raise AuditError(str(err)) from None


def write_tables(folder: Path, tables: list) -> None:
    """Each ``(name, frame)`` as ``name.csv`` (the one CSV writer, :func:`fairstats._csv.csv_text`: every
    field a reader could split quoted, would-be formulas defused) and ``name.md`` (data strings escaped) in
    ``folder``."""
    from fairstats._csv import csv_text
    from fairstats.auditing.report import markdown_table
    from fairstats.auditing.writing import atomic_write_text

    for name, frame in tables:
        atomic_write_text(folder / f"{name}.csv", csv_text(frame))
        atomic_write_text(folder / f"{name}.md", markdown_table(frame, digits=4))
