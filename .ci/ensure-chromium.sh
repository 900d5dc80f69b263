#!/usr/bin/env bash
# Headless Chromium for tests/workflow/test_site_browser.py: install Debian's `chromium` if it is missing
# (as root, or through sudo). The browser test fails rather than skips without it, so this runs before the tests.
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
echo "installing chromium (Debian package) for the browser test ..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
