#!/usr/bin/env bash
# sameboy-probe.sh: run probe ROMs (our assembler's sources) in SameBoy and in Backspin from
# the same boot ROM and compare the screens: the differential check of roms-test/probes/.
#
# Usage: tools/sameboy-probe.sh [--frames N] [--keep DIR] PROBE.asm...
#   The model comes from the probe's header line `; model: DMG` or `; model: CGB` (default CGB).
#   A probe shows its results and then holds a still screen, so the frame count only needs to
#   be past the end of the probe's sweep (default 300; SameBoy's boot animation alone takes about 3 s).
# Environment:
#   SAMEBOY_BUILD  the folder ../shared/peers/build-sameboy.sh built into
#                  (default /tmp/sameboy-bess-build); boot ROMs from its SameBoy/build/bin/BootROMs.
# SameBoy runs through tools/sameboy-run.c (built into SAMEBOY_BUILD on first use), with its
# cartridge clock counting emulated time. A probe with an input script beside it (`X.inputs` for
# `X.asm`, the format of `backspin movie record --inputs`, `@CYCLE` lines only) runs with those
# buttons pressed in both emulators.
# Prints one line per probe (same / DIFFERENT, with the two PNGs when kept); exits 1 if any differ.
# Needs SameBoy, so CI does not run it: the probes' expected screens (checked by cargo test) are
# the ones this script found SameBoy and Backspin to agree on.
set -euo pipefail
cd "$(dirname "$0")/.."

frames=300
keep=""
while [[ $# -gt 0 && "$1" == --* ]]; do
	case "$1" in
	--frames) frames="$2"; shift 2 ;;
	--keep) keep="$2"; shift 2 ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
[[ $# -gt 0 ]] || { sed -n 4,18p "$0" >&2; exit 2; }

build="${SAMEBOY_BUILD:-/tmp/sameboy-bess-build}"
sameboy="$build/sameboy-bess"
boot_dir="$build/SameBoy/build/bin/BootROMs"
[[ -x "$sameboy" ]] || { echo "no $sameboy: run ../shared/peers/build-sameboy.sh (see its README)" >&2; exit 2; }
export SAMEBOY_BOOT_ROMS="$boot_dir"

cargo build -q --release -p backspin
cargo build -q --release -p backspin-asm --example bsasm
bin="${CARGO_TARGET_DIR:-target}/release"
sameboy_run="$build/sameboy-run"
if [[ ! "$sameboy_run" -nt tools/sameboy-run.c || ! "$sameboy_run" -nt tools/sameboy-power-on.h ]]; then
	cc -O2 -std=gnu11 -Wall -Wextra -I"$build/SameBoy" -o "$sameboy_run" tools/sameboy-run.c \
		"$build/SameBoy/build/lib/libsameboy.a" $(pkg-config --cflags --libs libpng) -lm
fi
out="${keep:-$(mktemp -d)}"
mkdir -p "$out"
status=0
for source in "$@"; do
	name="$(basename "$source" .asm)"
	model="$(sed -n 's/^; *model: *\([A-Z]*\).*/\1/p' "$source" | head -1)"
	model="${model:-CGB}"
	case "$model" in
	DMG) boot="$boot_dir/dmg_boot.bin"; ours=dmg ;;
	CGB) boot="$boot_dir/cgb_boot.bin"; ours=cgb ;;
	*) echo "$source: model $model is neither DMG nor CGB" >&2; exit 2 ;;
	esac
	"$bin/examples/bsasm" "$source" "$out/$name.gb"
	inputs="${source%.asm}.inputs"
	if [[ -f "$inputs" ]]; then
		with_inputs=(--inputs "$inputs")
	else
		inputs=-
		with_inputs=()
	fi
	"$sameboy_run" "$out/$name.gb" "$model" "$frames" "$inputs" "$out/$name.sameboy.at.png"
	"$bin/backspin" run "$out/$name.gb" --model "$ours" --boot-rom "$boot" --frames "$frames" \
		--no-save --screenshot "$out/$name.backspin.png" "${with_inputs[@]}" >/dev/null
	if "$sameboy" compare "$out/$name.sameboy.at.png" "$out/$name.backspin.png" >/dev/null; then
		echo "same       $name ($model)"
	else
		echo "DIFFERENT  $name ($model): $out/$name.sameboy.at.png vs $out/$name.backspin.png"
		status=1
	fi
done
[[ -n "$keep" ]] || rm -rf "$out"
exit "$status"
