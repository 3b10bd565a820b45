#!/usr/bin/env bash
# Builds the portable (manylinux, abi3) wheel of the `backspin` Python package with maturin
# and zig (`maturin build --release --zig`), installs it into a fresh virtual environment
# and runs one smoke call: what CI does once, so the wheel a release would publish is known
# to build, install and import. Usage: crates/python/wheel.sh [OUT_DIR] (default
# target/wheels). The tools (PyPI's `maturin` and `ziglang`) go into target/wheel-tools.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-target/wheels}
tools=target/wheel-tools
if [ ! -x "$tools/bin/maturin" ] || ! "$tools/bin/python" -m ziglang version >/dev/null 2>&1; then
    python3 -m venv "$tools"
    "$tools/bin/pip" install -q "maturin>=1.9,<2" ziglang
fi
rm -rf "$out"
# maturin finds zig as `python3 -m ziglang` with the first python3 on PATH: the tools venv's.
PATH="$PWD/$tools/bin:$PATH" maturin build --release --zig \
    --manifest-path crates/python/Cargo.toml --out "$out"
wheels=("$out"/backspin-*.whl)
echo "built ${wheels[*]}"
check=target/wheel-check-venv
rm -rf "$check"
python3 -m venv "$check"
"$check/bin/pip" install -q "${wheels[0]}"
# Run from outside the checkout so the installed wheel is imported, not the source tree.
(cd "$check" && bin/python -c '
import backspin
gb = backspin.GameBoy(backspin.demo_rom())
gb.run(frames=60)
assert gb.frame == 60 and gb.screen.shape == (144, 160, 3), (gb.frame, gb.screen.shape)
print("wheel smoke test: ok,", backspin.__file__)
')
