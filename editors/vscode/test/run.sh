#!/usr/bin/env bash
# The Node DAP suite: builds `backspin` and the test ROM, installs the two npm packages the
# suite needs (kept in editors/vscode/node_modules, ignored by git), runs `node --test`.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(cd ../.. && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
(cd "$root" && cargo build -q -p backspin && cargo run -q -p backspin-debug --example counter_rom -- "$target/dap-test")
if [ ! -d node_modules/@vscode/debugadapter-testsupport ]; then
    npm ci --no-audit --no-fund --omit=optional
fi
BACKSPIN="$target/debug/backspin" BACKSPIN_TEST_ROMS="$target/dap-test" node --test test/
