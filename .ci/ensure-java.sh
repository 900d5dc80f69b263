#!/usr/bin/env bash
# Java for the Spark tests (tests/library/test_engines_spark.py, PySpark in local mode): install Debian's
# `openjdk-17-jre-headless` if `java` is missing (as root, or through sudo). The Spark test fails rather than
# skips without it, so this runs before the tests.
set -euo pipefail
command -v java >/dev/null 2>&1 && exit 0
SUDO=$([ "$(id -u)" -eq 0 ] || echo sudo)
echo "installing openjdk-17-jre-headless (Debian package) for the Spark test ..." >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jre-headless >/dev/null
