#!/usr/bin/env bash
# Builds the `backspin` Python package into a fresh virtual environment and runs its tests:
# what CI does after `cargo test`. Usage: crates/python/test.sh [VENV_DIR] [pytest args...]
# With BACKSPIN_WHEEL=path/to/backspin-*.whl the tests run against that built wheel instead of
# a build from source (CI tests the wheel `wheel.sh` built, so the release build happens once).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${1:-target/python-venv}
shift || true
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q "${BACKSPIN_WHEEL:-./crates/python}[test]"
"$venv/bin/python" -m pytest -q crates/python/tests "$@"
