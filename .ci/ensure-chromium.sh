#!/usr/bin/env bash
# Headless Chromium for tests/compendium/workflow/test_site_browser.py and the audit report's PDF (fairstats audit --pdf),
# and poppler-utils' pdftoppm/pdftotext, with which tests/library/test_audit_report.py renders the PDF's first page:
# install the Debian packages `chromium` and `poppler-utils` if missing (as root, or through sudo). The tests
# fail rather than skip without them, so this runs before the tests.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v pdftoppm >/dev/null 2>&1 || missing+=(poppler-utils)
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
echo "installing ${missing[*]} (Debian packages) for the browser and PDF tests ..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
