"""The output folder of ``fairstats audit``: it only ever replaces files it wrote itself.

Every audit folder holds a manifest (:data:`MANIFEST`, JSON) listing the files the audit wrote with their
SHA-256. :func:`check_out_folder` accepts ``--out`` only when it is new, empty, or an earlier audit's folder
that holds exactly the files of its manifest, unchanged; it refuses (:class:`~fairstats.auditing.AuditError`,
exit 2, nothing touched) a file, a folder holding anything else, a read-only folder, a dangling symbolic
link, and an input file inside ``--out``. A symbolic link to a folder stays a link: the audit replaces the
folder it points to. The audit is built in a hidden work folder beside ``--out`` (its name carries the process
id) and swapped into place at the end; leftovers of a killed run are removed by the next run.

The manifest names its owner (``"owner"``: ``"audit"``, or ``"monitor"`` for ``fairstats monitor``'s state,
:mod:`fairstats.auditing.monitor`): an audit never replaces a monitor's state, nor the monitor an audit's
folder (a manifest from before issue 36 has no owner; a folder holding ``monitor.json`` is a monitor's). A
monitor's state must also hold every file its manifest lists. Writers of one folder take turns:
:func:`locked` holds an exclusive lock (``flock``) on a file beside it (:data:`LOCK_SUFFIX`) while a run reads
the folder and swaps its new version in, and :func:`swap_into_place` refuses a folder whose manifest changed
since the run read it (a writer that took no lock).

The clean-up removes only what this tool created, as recorded: a work folder holding the marker file
(:data:`WORK_MARKER`) that :func:`new_work_folder` wrote into it, naming this ``--out`` and the process, a
regular file and no symbolic link; or an earlier audit moved aside during the swap (its manifest lists
exactly its files, unchanged); in both cases only when that process is gone. A folder of the user's that
merely has a work folder's name is never touched. A work folder's name stays within the file system's limit
on names (:data:`NAME_MAX` bytes) whenever ``--out``'s does: a long name is shortened and a hash added.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from fairstats._version import __version__
from fairstats.auditing.errors import AuditError
from fairstats.auditing.writing import file_sha256

__all__ = [
    "checked_out",
    "write_folder",
    "write_tables",
    "LOCK_SUFFIX",
    "LOCK_WAIT",
    "MANIFEST",
    "NAME_MAX",
    "OWNERS",
    "WORK_MARKER",
    "OutFolderError",
    "check_out_folder",
    "discard_own",
    "locked",
    "manifest_text",
    "new_work_folder",
    "process_alive",
    "swap_into_place",
]

#: The manifest every audit folder holds: ``{"fairstats": version, "owner": owner, "files": {name: sha256}}``.
MANIFEST = ".fairstats-audit"
#: Who writes a folder, and how messages name the folder and the writer.
OWNERS = {"audit": ("--out", "the audit", "an audit's output folder"),
          "monitor": ("--state", "the monitor", "a fairstats monitor's state")}  # fmt: skip
#: The lock file beside a folder (``.NAME`` + this): held by the run that reads and replaces the folder.
LOCK_SUFFIX = ".fairstats-lock"
#: Seconds a run waits for another run's lock on the same folder before it gives up (exit status 2).
LOCK_WAIT = 60.0


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


def _record(folder: Path) -> dict | None:
    """The manifest of ``folder`` (None: none, or not one this tool wrote)."""
    try:
        record = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = record["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return None
    return record


def _manifest(folder: Path) -> dict[str, str] | None:
    record = _record(folder)
    return None if record is None else record["files"]


def _owner(record: dict) -> str:
    """Who wrote a folder: its manifest's owner (before issue 36: the monitor's if it lists monitor.json)."""
    owner = record.get("owner")
    if owner in OWNERS:
        return owner
    return "monitor" if "monitor.json" in record["files"] else "audit"


def manifest_text(folder: Path) -> str | None:
    """The manifest of ``folder`` as it is now (None: none), to compare with before a swap."""
    try:
        return (folder / MANIFEST).read_text(encoding="utf-8")
    except OSError:
        return None


def _foreign(folder: Path, owner: str = "audit") -> str | None:
    """Why ``folder`` holds something ``owner`` did not write (None: only its manifest's files)."""
    entries = sorted(p.name for p in folder.iterdir())
    if not entries:
        return None
    record = _record(folder)
    if record is None:
        return f"holds {entries[0]!r} and no audit manifest ({MANIFEST})"
    files = record["files"]
    if _owner(record) != owner:
        return f"is {OWNERS[_owner(record)][2]}, which {OWNERS[owner][1]} never writes into"
    if owner == "monitor":  # a state is whole: a file its manifest lists cannot go missing
        gone = sorted(set(files) - set(entries))
        if gone:
            return f"lacks {gone[0]!r}, which its manifest lists (the state was changed by hand)"
    earlier = "an earlier audit" if owner == "audit" else "the monitor"
    for name in entries:
        path = folder / name
        if name == MANIFEST:
            continue
        if name not in files or path.is_symlink() or not path.is_file():
            return f"holds {name!r}, which {earlier} did not write"
        if file_sha256(path) != files[name]:
            return f"holds {name!r}, changed since {OWNERS[owner][1]} wrote it"
        if _read_only(path):
            return f"holds {name!r}, which is read-only"
    return None


def check_out_folder(out: Path, *, inputs: tuple[Path, ...] = (), owner: str = "audit") -> Path:
    """The folder the audit may write to ``out`` (a symbolic link's target); raise :class:`OutFolderError`.

    Parameters
    ----------
    out : pathlib.Path
        ``--out`` as given.
    inputs : tuple of pathlib.Path
        Files the audit reads; none may lie inside ``out``.
    owner : {"audit", "monitor"}
        Who writes the folder (:data:`OWNERS`): a folder of the other is refused.
    """
    flag, writer, _ = OWNERS[owner]
    shown = str(out)
    target = out
    if out.is_symlink():
        if not out.exists():
            raise OutFolderError(f"{flag} {shown!r} is a symbolic link to nothing; choose a folder")
        target = out.resolve()
    if target.exists() and not target.is_dir():
        raise OutFolderError(f"{flag} {shown!r} exists and is a file, not a folder")
    real = target.resolve()
    for path in inputs:
        if path.exists() and path.resolve().is_relative_to(real):
            raise OutFolderError(
                f"the input {str(path)!r} lies inside {flag} {shown!r}; {writer} would replace it: "
                f"choose another {flag}"
            )
    if target.is_dir():
        if _read_only(target):
            raise OutFolderError(f"{flag} {shown!r} is read-only; {writer} does not replace it")
        record = _record(target)
        if record is not None and _owner(record) != owner:
            other = OWNERS[_owner(record)][2]
            raise OutFolderError(
                f"{flag} {shown!r} is {other}; {writer} never writes into it: choose another {flag}"
            )
        why = _foreign(target, owner)
        if why is not None:
            raise OutFolderError(
                f"{flag} {shown!r} {why}; {writer} only replaces its own files: choose a new folder"
            )
    parent = real.parent
    if parent.is_dir() and _read_only(parent):
        raise OutFolderError(f"{flag} {shown!r}: its folder {str(parent)!r} is read-only")
    return real


_WORK = re.compile(r"^\.(?P<name>.+)\.fairstats-(?P<kind>work|old|lock)-(?P<pid>\d+)-[A-Za-z0-9_]+$")


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
    if kind == "lock":  # a lock file's marker, written before it was linked into place (see locked)
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return isinstance(record, dict) and record.get("fairstats-lock") == str(target) and \
            record.get("pid") == pid  # fmt: skip
    if kind == "work":
        record = _marker(path)
        if record is None:  # made by mkdtemp, killed before its marker was in place: empty, or the marker
            # still under its temporary name (written whole, then renamed: never a torn marker)
            return {p.name for p in path.iterdir()} <= {WORK_MARKER + ".tmp"}
        return record.get("fairstats-work") == str(target) and record.get("pid") == pid
    record = _record(path)  # an earlier audit or state, as it was written
    return record is not None and _foreign(path, _owner(record)) is None


def _clean_leftovers(target: Path) -> None:
    """Remove the work folders of earlier runs for ``target`` whose process is gone (SIGKILL), and only those
    this tool created (see the module)."""
    parent = target.parent
    if not parent.is_dir():
        return
    stem = _stem(target)
    for path in sorted(parent.iterdir()):
        match = _WORK.match(path.name)
        if not match or match["name"] != stem or path.is_symlink():
            continue
        if path.is_dir() == (match["kind"] == "lock") or not (path.is_dir() or path.is_file()):
            continue
        pid = int(match["pid"])
        if pid == os.getpid() or process_alive(pid):
            continue
        with contextlib.suppress(OSError):
            if _ours(path, target, match["kind"], pid):
                if path.is_dir():
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink()


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


def write_manifest(folder: Path, owner: str = "audit") -> None:
    """List every file in ``folder`` with its SHA-256 in the manifest, which names its ``owner``."""
    files = {p.name: file_sha256(p) for p in sorted(folder.iterdir()) if p.name != MANIFEST}
    record = {"fairstats": __version__, "owner": owner, "files": files}
    (folder / MANIFEST).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def swap_into_place(tmp: Path, target: Path, *, owner: str = "audit", expected: str | None = None) -> None:
    """Put the finished work folder ``tmp`` at ``target``, replacing an earlier folder of ``owner`` there.

    ``target`` is checked again just before (files may have appeared during the run); with ``expected``
    (its manifest when the run read it, :func:`manifest_text`), it must still hold that manifest: a folder
    another writer replaced meanwhile is not replaced again. On any failure the earlier folder stays as it
    was.
    """
    flag = OWNERS[owner][0]
    (tmp / WORK_MARKER).unlink(missing_ok=True)
    write_manifest(tmp, owner)
    if expected is not None and manifest_text(target) != expected:
        raise OutFolderError(f"{flag} {str(target)!r} was changed by another run while this one read it; "
                             "nothing was replaced: run again")  # fmt: skip
    if target.exists():
        why = _foreign(target, owner)
        if why is not None:
            raise OutFolderError(
                f"{flag} {str(target)!r} {why} (it changed during the run); nothing was replaced"
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


def _lock_path(target: Path) -> Path:
    return target.parent / f".{_stem(target)}{LOCK_SUFFIX}"


def _try_lock(fd: int) -> bool:
    """Take the exclusive lock of the open file ``fd`` if no other process holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: a lock on the file's first byte
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _open_lock(path: Path, marker: bytes) -> int:
    """The lock file at ``path``, opened: made with ``marker`` in it (written first, then linked into place:
    the file is never seen empty), or the one there, if it holds a marker (a lock of this tool's)."""
    flags = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f"{path.name}-{os.getpid()}-")
    try:
        os.write(fd, marker)
        os.close(fd)
        try:
            os.link(tmp, path)  # fails if a lock file is there: never replaces one another run holds
        except FileExistsError:
            pass
    finally:
        Path(tmp).unlink(missing_ok=True)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return -1  # released meanwhile: try again
    except OSError as err:  # a symbolic link, or unreadable
        raise OutFolderError(
            f"{str(path)!r} is not a fairstats lock file ({err.strerror}); it is not touched: remove it"
        ) from None
    with contextlib.suppress(OSError, ValueError):
        record = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        if isinstance(record, dict) and record.get("fairstats-lock"):
            return fd
    os.close(fd)
    raise OutFolderError(f"{str(path)!r} is not a fairstats lock file; it is not touched: remove it, or "
                         "choose another folder")  # fmt: skip


@contextlib.contextmanager
def locked(target: Path, *, owner: str = "audit", wait: float | None = None) -> Iterator[None]:
    """Hold the lock of the folder ``target`` (see the module): a second run for the same folder waits up to
    ``wait`` seconds (default :data:`LOCK_WAIT`) for the first to finish, then gives up with
    :class:`OutFolderError` (exit status 2), never touching the folder. The lock file is removed when the
    lock is released; one a killed run left is taken over (its lock ended with the process)."""
    flag, writer, _ = OWNERS[owner]
    path = _lock_path(target)
    marker = (json.dumps({"fairstats-lock": str(target), "pid": os.getpid()}) + "\n").encode("utf-8")
    deadline = time.monotonic() + (LOCK_WAIT if wait is None else wait)
    target.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = _open_lock(path, marker)
        if fd >= 0 and _try_lock(fd):
            try:
                now = os.stat(path, follow_symlinks=False)
            except FileNotFoundError:
                now = None
            mine = os.fstat(fd)
            if now is not None and (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino):
                break  # still the lock file: ours
        if fd >= 0:
            os.close(fd)  # the file a run released (and removed) while this one waited: try again
        if time.monotonic() >= deadline:
            raise OutFolderError(
                f"{flag} {str(target)!r} is being updated by another fairstats run, still after "
                f"{LOCK_WAIT if wait is None else wait:g} s; {writer} left it as it is: run again when that "
                "one is done"
            )
        time.sleep(0.05)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            path.unlink()  # while still held: a run waiting on this file sees it gone and takes a new one
        os.close(fd)


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
        with collector_paused():
            value = write(tmp)
        with locked(target):  # a monitor may not be swapping its state in here at the same moment
            swap_into_place(tmp, target)
    except OutFolderError as err:
        discard_own(target)
        raise AuditError(str(err)) from None
    except BaseException:  # an interrupt may come while the work folder is being made: every one of ours
        discard_own(target)
        raise
    return value


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a folder is written, and as it was after (issue 37).

    Drawing the figures and compiling the report's templates make tens of thousands of short-lived objects in
    reference cycles (Matplotlib's artists and transforms, Jinja2's syntax trees), so the collector runs
    several full collections during a save, and each walks every object of the process (pandas, scipy and
    Matplotlib included): about 0.2 s of the COMPAS audit's first save (median 1.78 s without the pause,
    1.58 s with it, six paired fresh interpreters). What the save leaves in cycles is freed at the
    collector's next run after it; nothing else changes."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
