#!/usr/bin/env bash
# Speed of the Backspin libretro core against Debian's Gambatte and mGBA cores, through the
# same minimal libretro host (../shared/peers/libretro-bench.c: retro_run as fast as
# possible, the frame copied out, audio counted and dropped, no input).
#
# Usage, from the repository root:  crates/libretro/bench.sh [FRAMES] [RUNS]
# Needs: apt-get install libretro-gambatte libretro-mgba; the shared test ROMs.
#
# Runs are interleaved (one run of each core in turn, RUNS rounds) so a busy machine slows
# all cores alike; each figure is the median of the runs' CPU-time frame rate (fps_cpu),
# with the spread (min-max) beside it; "rounds" is the spread of the ratio to Gambatte within
# each round (the two runs side by side), and "repeats" how many of Backspin's frames were
# sent as "the last picture again" (the host can repeat frames: GET_CAN_DUPE). The gate:
# Backspin at least 1.5x Gambatte on opus5, gejmboj and cpu_instrs as a DMG and gb8 as a
# CGB; cpu_instrs as a CGB is reported only. CASES (e.g. CASES=gejmboj) runs only the rows
# whose name contains it.
set -euo pipefail
cd "$(dirname "$0")/../.."
frames=${1:-6000}
runs=${2:-5}
roms=${GB_TEST_ROMS:-../shared/test-roms}
peers=../shared/peers
libdir=/usr/lib/x86_64-linux-gnu/libretro
for core in gambatte mgba; do
    [ -f "$libdir/${core}_libretro.so" ] || { echo "apt-get install libretro-$core first" >&2; exit 2; }
done
target=${CARGO_TARGET_DIR:-target}
cargo build --release -q -p backspin-libretro
ours="$target/release/libbackspin_libretro.so"
host=$(mktemp -d)/libretro-bench
cc -O2 -o "$host" "$peers/libretro-bench.c" -ldl

python3 - "$host" "$ours" "$libdir" "$roms" "$frames" "$runs" <<'PY'
import re, statistics, subprocess, sys
host, ours, libdir, roms, frames, runs = sys.argv[1:7]
frames, runs = int(frames), int(runs)
cores = {
    "backspin": (ours, {"DMG": "backspin_model=dmg", "CGB": "backspin_model=cgb"}),
    "gambatte": (f"{libdir}/gambatte_libretro.so", {"DMG": "gambatte_gb_hwmode=GB", "CGB": "gambatte_gb_hwmode=GBC"}),
    "mgba": (f"{libdir}/mgba_libretro.so", {"DMG": "mgba_gb_model=Game Boy", "CGB": "mgba_gb_model=Game Boy Color"}),
}
cases = [  # (name, rom, model, gated)
    ("opus5", "homebrew/opus5.gb", "DMG", True),
    ("gejmboj", "homebrew/gejmboj.gb", "DMG", True),
    ("cpu_instrs", "blargg/cpu_instrs/cpu_instrs.gb", "DMG", True),
    ("gb8", "homebrew/gb8.gb", "CGB", True),
    ("cpu_instrs", "blargg/cpu_instrs/cpu_instrs.gb", "CGB", False),
]
only = __import__("os").environ.get("CASES", "")
cases = [case for case in cases if only in case[0]]
repeats = {}
def run(core, rom, model):
    path, opts = cores[core]
    out = subprocess.run([host, path, f"{roms}/{rom}", str(frames), "--opt", opts[model]],
                         capture_output=True, text=True)
    m = re.search(r"fps_cpu=([0-9.]+)", out.stdout + out.stderr)
    if not m:
        sys.exit(f"{core} on {rom}: no fps_cpu in\n{out.stdout}{out.stderr}")
    dup = re.search(r"dup_frames=([0-9]+)", out.stdout + out.stderr)
    repeats[core] = int(dup.group(1)) if dup else 0
    return float(m.group(1))
print(f"{frames} frames, median of {runs} interleaved runs, CPU-time frames per second (min-max)")
print(f"{'ROM':12s} {'model':5s} {'backspin':>22s} {'gambatte':>22s} {'mgba':>22s} {'vs gambatte':>12s} {'rounds':>11s} {'vs mgba':>8s} {'repeats':>8s}")
worst = None
for name, rom, model, gated in cases:
    results = {core: [] for core in cores}
    for _ in range(runs):
        for core in cores:
            results[core].append(run(core, rom, model))
    med = {core: statistics.median(v) for core, v in results.items()}
    cell = lambda core: f"{med[core]:8.0f} ({min(results[core]):6.0f}-{max(results[core]):6.0f})"
    ratio = med["backspin"] / med["gambatte"]
    rounds = [b / g for b, g in zip(results["backspin"], results["gambatte"])]
    if gated:
        worst = ratio if worst is None else min(worst, ratio)
    note = "" if gated else "  (reported, not gated)"
    print(f"{name:12s} {model:5s} {cell('backspin'):>22s} {cell('gambatte'):>22s} {cell('mgba'):>22s}"
          f" {ratio:11.2f}x {min(rounds):4.2f}-{max(rounds):4.2f}x {med['backspin'] / med['mgba']:7.2f}x"
          f" {repeats['backspin']:8d}{note}")
print(f"worst gated ratio backspin/gambatte: {worst:.2f}x (goal: at least 1.50x)")
PY
