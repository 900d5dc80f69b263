"""The report as PDF: ``report.html`` printed by headless Chromium (its print stylesheet, A4).

Why Chromium and not a Python library: the PDF is then the page a reader sees in a browser, laid out by the
same engine that the browser tests and the screenshots use, with the report's own print stylesheet; no
maintained pure-Python HTML-to-PDF library is in the project's lock (WeasyPrint would add Pango and its own
CSS engine). Debian's ``chromium`` package (``.ci/ensure-chromium.sh`` installs it in CI) is looked up as
``$FAIRSTATS_CHROMIUM``, then ``chromium``, ``chromium-browser``, ``google-chrome`` on ``PATH``; without one,
:class:`~fairstats.auditing.errors.PdfRendererError`, before anything is computed or written.

The page is opened offline (no network, every host name unresolvable), from its own folder; Chromium writes a
creation date into the PDF, so ``report.pdf`` (unlike the other files) is not the same bytes on every run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from fairstats.auditing.errors import PdfRendererError
from fairstats.auditing.writing import one_line

__all__ = ["find_renderer", "print_pdf"]

_NAMES = ("chromium", "chromium-browser", "google-chrome")


def find_renderer() -> str:
    """The Chromium executable that prints the PDF, or :class:`PdfRendererError` naming how to get one."""
    given = os.environ.get("FAIRSTATS_CHROMIUM")
    if given:
        found = shutil.which(given)
        if found is None:
            raise PdfRendererError(
                f"--pdf: FAIRSTATS_CHROMIUM={given!r} is not an executable; point it to Chromium or unset it"
            )
        return found
    for name in _NAMES:
        found = shutil.which(name)
        if found is not None:
            return found
    raise PdfRendererError(
        "--pdf needs headless Chromium to print the report, and none was found (chromium, chromium-browser "
        "or google-chrome on PATH, or FAIRSTATS_CHROMIUM); install it (Debian: apt-get install chromium) or "
        "leave out --pdf"
    )


def print_pdf(page: Path, pdf: Path, *, timeout: float = 180) -> Path:
    """Print the HTML file ``page`` to ``pdf`` with headless Chromium (no header or footer, offline).

    Raises
    ------
    PdfRendererError
        No Chromium, or Chromium failed or wrote no PDF (its last message line is given).
    """
    exe = find_renderer()
    with tempfile.TemporaryDirectory(prefix="fairstats-pdf-") as profile:
        cmd = [
            exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
            "--disable-background-networking", "--disable-extensions", "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={profile}",
            "--no-pdf-header-footer", "--virtual-time-budget=5000", f"--print-to-pdf={pdf}",
            page.resolve().as_uri(),
        ]  # fmt: skip
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as err:
            raise PdfRendererError(f"--pdf: Chromium could not print {page.name}: {one_line(err)}") from None
    if res.returncode != 0 or not pdf.is_file() or pdf.stat().st_size == 0:
        last = next((line for line in reversed(res.stderr.splitlines()) if line.strip()), "no message")
        raise PdfRendererError(
            f"--pdf: Chromium did not print {page.name} (exit status {res.returncode}): {one_line(last)}"
        )
    return pdf
