#!/bin/bash
# Kueue conformance suite (tests/conformance/kueue): cases re-expressed from Kueue's own table
# tests, each run through `steward policy simulate --json`; fails on any unexpected result.
set -euo pipefail
bin="$1"
/usr/bin/python3 tests/conformance/kueue/run.py "$bin"
