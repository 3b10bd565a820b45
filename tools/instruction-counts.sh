#!/bin/sh
# Instruction counts of `backspin bench` (cachegrind, no cache simulation): the noise-free
# figure for judging a change to the hot path on a shared machine, where wall and CPU time
# drift with the load. Runs gejmboj, cpu_instrs (a CGB in double speed by default), opus5
# and gb8, two at a time, and prints one JSON object per ROM.
#
# usage: tools/instruction-counts.sh [FRAMES] [BENCH OPTION...]   (default 3000 frames)
#        e.g. tools/instruction-counts.sh 3000 --model dmg
# env:   BACKSPIN_BIN (default target/release/backspin, from `cargo build --release`),
#        GB_TEST_ROMS (default ../shared/test-roms)
# needs: valgrind
set -eu

frames=${1:-3000}
[ $# -gt 0 ] && shift
bin=${BACKSPIN_BIN:-target/release/backspin}
roms=${GB_TEST_ROMS:-../shared/test-roms}

[ -x "$bin" ] || { echo "no $bin: cargo build --release -p backspin first" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "no valgrind: apt-get install valgrind" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# count NAME ROM [BENCH OPTION...]: one bench under cachegrind; its JSON line into the
# work directory.
count() {
    name=$1 rom=$2
    shift 2
    if valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$bin" bench "$rom" --frames "$frames" "$@" >/dev/null 2>"$work/$name.err"; then
        refs=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$work/$name.err" | tr -d ,)
    else
        refs=
    fi
    if [ -n "$refs" ]; then
        echo "{\"rom\":\"$name\",\"frames\":$frames,\"instructions\":$refs}"
    else
        echo "{\"rom\":\"$name\",\"error\":\"no count: $(grep -v "^[=-][=-]" "$work/$name.err" | head -n 1 | tr -d \"\\\\)\"}"
    fi >"$work/$name.json"
}

count gejmboj "$roms/homebrew/gejmboj.gb" "$@" &
count cpu_instrs "$roms/blargg/cpu_instrs/cpu_instrs.gb" "$@" &
wait
count opus5 "$roms/homebrew/opus5.gb" "$@" &
count gb8 "$roms/homebrew/gb8.gb" "$@" &
wait
cat "$work/gejmboj.json" "$work/cpu_instrs.json" "$work/opus5.json" "$work/gb8.json"
