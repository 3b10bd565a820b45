#!/bin/sh
# A profile-guided release build of `backspin` at target/release/backspin (or under
# $CARGO_TARGET_DIR): the workspace's crates are built instrumented, that binary plays the
# repository's own ROMs (roms-test/ and the demo, assembled here; `bench` on a DMG and a CGB,
# every frame drawn with sound and every 24th without, and a short `rewind-bench`), and the
# workspace's crates are built again with those counts, so that LLVM lays out and inlines the
# hot paths (the interpreter, the PPU's catch-up, the synthesizer) by how often they run.
# The emulation is the same code either way: every test and oracle holds for both builds.
# The training uses no outside ROM, so the build needs nothing beyond the repository.
#
# A profile only applies to functions whose symbol names match, and a crate's symbol hashes
# change with its dependencies' features: both builds are therefore the same command
# (`cargo build --release -p backspin`), and the profile flags reach the workspace's crates
# through a rustc wrapper instead of RUSTFLAGS, so dependencies, build scripts and the proc
# macro are built as usual. The instrumented build has its own target directory; the final
# one rebuilds the workspace's crates in the usual one and then touches their sources, so that
# the next plain `cargo build --release` rebuilds them plainly. LLVM's warning for functions
# without profile data tells whether the profile matched the core.
#
# usage: tools/pgo-build.sh
# needs: llvm-profdata of rustc's LLVM (rustup component add llvm-tools)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
    echo "pgo-build: no llvm-profdata for this rustc (rustup component add llvm-tools)" >&2
    exit 2
fi
target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target=$root/$target ;; esac
work=$target/pgo
rm -rf "$work/raw" "$work/roms"
mkdir -p "$work/raw" "$work/roms"

# Adds $PGO_FLAGS to the workspace's crates (all named backspin*) but not to the proc macro,
# which runs inside the compiler.
wrapper=$work/rustc-wrapper.sh
cat >"$wrapper" <<'WRAPPER'
#!/bin/sh
rustc=$1
shift
case " $* " in
*" --crate-type proc-macro "*) exec "$rustc" "$@" ;;
*" --crate-name backspin"*) exec "$rustc" "$@" $PGO_FLAGS ;;
*) exec "$rustc" "$@" ;;
esac
WRAPPER
chmod +x "$wrapper"

echo "pgo-build: 1/4 instrumented build" >&2
# Cargo does not see the wrapper's flags: newer sources make it rebuild the workspace's crates.
find crates -name '*.rs' -exec touch {} +
RUSTC_WRAPPER=$wrapper PGO_FLAGS="-Cprofile-generate=$work/raw" \
    cargo build --release -p backspin --target-dir "$work/train"
trained=$work/train/release/backspin

echo "pgo-build: 2/4 assembling the training ROMs" >&2
cargo build --release -p backspin-asm --example bsasm --target-dir "$target"
for source in roms-test/*.asm assets/demo/demo.asm; do
    "$target/release/examples/bsasm" "$source" "$work/roms/$(basename "$source" .asm).gb"
done

echo "pgo-build: 3/4 training run" >&2
for rom in "$work"/roms/*.gb; do
    for model in dmg cgb; do
        "$trained" bench "$rom" --model "$model" --frames 1200 >/dev/null
        "$trained" bench "$rom" --model "$model" --frames 1200 --draw-every 24 >/dev/null
    done
done
"$trained" rewind-bench "$work/roms/demo.gb" --seconds 60 --input-seed 1 >/dev/null
"$profdata" merge -o "$work/backspin.profdata" "$work"/raw/*.profraw

echo "pgo-build: 4/4 profile-guided build" >&2
find crates -name '*.rs' -exec touch {} +
log=$work/build.log
RUSTC_WRAPPER=$wrapper \
    PGO_FLAGS="-Cprofile-use=$work/backspin.profdata -Cllvm-args=-pgo-warn-missing-function" \
    cargo build --release -p backspin --target-dir "$target" 2>"$log" || {
    cat "$log" >&2
    exit 1
}
find crates -name '*.rs' -exec touch {} +
# Functions the linker drops (most of the assembler's) have no counts; the core's all have.
if grep -q "^warning: backspin_core\..*no profile data available" "$log"; then
    echo "pgo-build: the profile does not match the core's functions (see $log)" >&2
    exit 1
fi
echo "$target/release/backspin"
