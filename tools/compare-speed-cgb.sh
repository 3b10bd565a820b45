#!/bin/sh
# Game Boy Color mode side by side (issue 34): Backspin `bench --model cgb` against Gambatte
# (Debian's libretro core, `gambatte_gb_hwmode=GBC`) on opus5, gejmboj, cpu_instrs (which
# runs in double speed) and gb8, every frame drawn. The two emulators' runs alternate, so
# machine load hits both alike; the figure is the frame loop's CPU time (`fps_cpu`), the
# median of RUNS runs. Prints one JSON object per ROM (each side's median and range, the
# ratio of the medians), then one with the worst ratio and the load average.
#
# usage: tools/compare-speed-cgb.sh [FRAMES] [RUNS]        (defaults 3000 and 5)
# env:   BACKSPIN_BIN (default target/release/backspin, from `cargo build --release`),
#        GB_TEST_ROMS (default ../shared/test-roms), PEERS (default ../shared/peers: where
#        libretro-bench.c lives), GAMBATTE_CORE (default: the one libretro-gambatte installs)
# needs: apt-get install libretro-gambatte; a C compiler for libretro-bench
set -eu

frames=${1:-3000}
runs=${2:-5}
bin=${BACKSPIN_BIN:-target/release/backspin}
roms=${GB_TEST_ROMS:-../shared/test-roms}
peers=${PEERS:-../shared/peers}
core=${GAMBATTE_CORE:-$(dpkg -L libretro-gambatte 2>/dev/null | grep '\.so$' | head -n 1)}

[ -x "$bin" ] || { echo "no $bin: cargo build --release -p backspin first" >&2; exit 2; }
[ -n "$core" ] && [ -f "$core" ] || { echo "no Gambatte core: apt-get install libretro-gambatte" >&2; exit 2; }
[ -f "$peers/libretro-bench.c" ] || { echo "no $peers/libretro-bench.c (set PEERS)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/libretro-bench" "$peers/libretro-bench.c" -ldl

exec python3 - "$bin" "$work/libretro-bench" "$core" "$roms" "$frames" "$runs" <<'PY'
import json, os, re, statistics, subprocess, sys

bin_, bench, core, roms = sys.argv[1:5]
frames, runs = int(sys.argv[5]), int(sys.argv[6])
cases = [
    ("opus5", "homebrew/opus5.gb"),
    ("gejmboj", "homebrew/gejmboj.gb"),
    ("cpu_instrs", "blargg/cpu_instrs/cpu_instrs.gb"),
    ("gb8", "homebrew/gb8.gb"),
]

def backspin(rom):
    out = subprocess.run([bin_, "bench", rom, "--frames", str(frames), "--model", "cgb"],
                         capture_output=True, text=True, check=True).stdout
    for line in reversed(out.strip().splitlines()):
        try:
            return float(json.loads(line)["fps_cpu"])
        except (ValueError, KeyError):
            pass
    sys.exit(f"no fps_cpu in backspin's output for {rom}")

def gambatte(rom):
    out = subprocess.run([bench, core, rom, str(frames), "--opt", "gambatte_gb_hwmode=GBC"],
                         capture_output=True, text=True)
    found = re.search(r"fps_cpu=([0-9.]+)", out.stdout + out.stderr)
    if not found:
        sys.exit(f"no fps_cpu in libretro-bench's output for {rom}")
    return float(found.group(1))

worst = None
for name, relative in cases:
    rom = os.path.join(roms, relative)
    if not os.path.isfile(rom):
        sys.exit(f"missing test ROM {rom} (set GB_TEST_ROMS)")
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(backspin(rom))
        theirs.append(gambatte(rom))
    ratio = statistics.median(ours) / statistics.median(theirs)
    worst = ratio if worst is None else min(worst, ratio)
    print(json.dumps({
        "rom": name, "model": "cgb", "frames": frames, "runs": runs,
        "backspin_fps_cpu_median": round(statistics.median(ours), 1),
        "backspin_fps_cpu_range": [min(ours), max(ours)],
        "gambatte_gbc_fps_cpu_median": round(statistics.median(theirs), 1),
        "gambatte_gbc_fps_cpu_range": [min(theirs), max(theirs)],
        "ratio": round(ratio, 3),
    }), flush=True)
print(json.dumps({"worst_ratio": round(worst, 3),
                  "load_average": [round(x, 2) for x in os.getloadavg()]}))
PY
