#!/usr/bin/env bash
# bess-replay-check.sh: do the save states Backspin writes replay in SameBoy? For every homebrew
# ROM in ../shared/test-roms/homebrew*/ (each in its own model, plus opus5 on a CGB), Backspin
# writes a state at each frame count, SameBoy imports it through its BESS footer and runs 300
# frames, and that screen is compared with Backspin's own 300 frames after loading the state.
#
# Usage: tools/bess-replay-check.sh [--frames "600 700 1333 2000"] [--post-boot] [--keep DIR]
# Environment:
#   SAMEBOY_BUILD  the folder ../shared/peers/build-sameboy.sh built into
#                  (default /tmp/sameboy-bess-build)
#   BACKSPIN       a backspin binary to use instead of building the release one
# Prints one line per state, then the totals; exits 1 if any replay differs.
#
# Control columns. SameBoy's BESS import starts the PPU afresh at LY 0 with the LCD just
# switched on (BESS has no PPU position), so a program that polls LY while the state is saved
# in VBlank can lose a frame in SameBoy whoever wrote the state. To tell that apart from a fault
# in our export, SameBoy also writes its own state at the same moment (`make-fixture`) and
# replays it BESS-only (`check --bess-only`): "own=same" or "own=DIFFERENT".
# - By default both emulators start from SameBoy's boot ROM, so the two states are taken at the
#   same moment of the game. SameBoy's fixture counts one frame more from power-on than
#   Backspin does, so Backspin's state for frame count N is taken after N - 1 of its frames;
#   "at=same" shows that both screens agree at that moment (the alignment holds). Where a
#   replay differs, "import=same" shows that SameBoy turned our state and its own into the same
#   screen (the difference is SameBoy's import, not our export).
# - `--post-boot` starts Backspin from its post-boot state instead (as a player would); then the
#   moments differ and the control columns only hint.
# Needs SameBoy, so CI does not run it.
set -euo pipefail
cd "$(dirname "$0")/.."

frame_counts="600 700 1333 2000"
keep=""
post_boot=""
while [[ $# -gt 0 && "$1" == --* ]]; do
	case "$1" in
	--frames) frame_counts="$2"; shift 2 ;;
	--keep) keep="$2"; shift 2 ;;
	--post-boot) post_boot=1; shift ;;
	*) echo "unknown option $1" >&2; exit 2 ;;
	esac
done
[[ $# -eq 0 ]] || { sed -n 7,12p "$0" >&2; exit 2; }

build="${SAMEBOY_BUILD:-/tmp/sameboy-bess-build}"
sameboy="$build/sameboy-bess"
[[ -x "$sameboy" ]] || { echo "no $sameboy: run ../shared/peers/build-sameboy.sh (see its README)" >&2; exit 2; }
export SAMEBOY_BOOT_ROMS="$build/SameBoy/build/bin/BootROMs"
roms=../shared/test-roms
[[ -d "$roms/homebrew" ]] || { echo "no $roms/homebrew" >&2; exit 2; }

if [[ -n "${BACKSPIN:-}" ]]; then
	backspin="$BACKSPIN"
else
	cargo build -q --release -p backspin
	backspin="${CARGO_TARGET_DIR:-target}/release/backspin"
fi

# The cartridge header's CGB flag (0x143 bit 7) picks the model, as `--model auto` does.
model_of() {
	if (( $(od -An -tu1 -j 0x143 -N1 "$1") & 0x80 )); then echo cgb; else echo dmg; fi
}

runs=()
for rom in "$roms"/homebrew/*.gb "$roms"/homebrew-cgb/*/*.gbc; do
	runs+=("$rom $(model_of "$rom")")
done
runs+=("$roms/homebrew/opus5.gb cgb")

out="${keep:-$(mktemp -d)}"
mkdir -p "$out"
# `compare` prints its verdict; only the exit status matters here.
same_screen() { "$sameboy" compare "$1" "$2" >/dev/null; }

total=0 same=0 own_same=0 aligned=0 differ_own_differs=0 differ_import_same=0
for run in "${runs[@]}"; do
	read -r rom model <<<"$run"
	name="$(basename "${rom%.*}")-$model"
	sameboy_model="${model^^}"
	for frames in $frame_counts; do
		base="$out/$name-f$frames"
		start=(--frames "$frames")
		[[ -n "$post_boot" ]] ||
			start=(--boot-rom "$SAMEBOY_BOOT_ROMS/${model}_boot.bin" --frames "$((frames - 1))")
		"$backspin" run "$rom" --model "$model" "${start[@]}" --no-save \
			--save-state "$base.state" --screenshot "$base.backspin.at.png" >/dev/null
		"$backspin" run "$rom" --model "$model" --load-state "$base.state" --frames 300 \
			--no-save --screenshot "$base.backspin.png" >/dev/null 2>&1
		"$sameboy" check "$base.state" "$rom" "$sameboy_model" "$base.sameboy.png" >/dev/null 2>&1
		"$sameboy" make-fixture "$rom" "$sameboy_model" "$frames" "$base.own" >/dev/null 2>&1
		"$sameboy" check --bess-only "$base.own.state" "$rom" "$sameboy_model" \
			"$base.own.replay.png" >/dev/null 2>&1
		own=DIFFERENT at=DIFFERENT
		if same_screen "$base.own.after300.png" "$base.own.replay.png"; then
			own=same
			own_same=$((own_same + 1))
		fi
		if same_screen "$base.backspin.at.png" "$base.own.at.png"; then
			at=same
			aligned=$((aligned + 1))
		fi
		total=$((total + 1))
		if same_screen "$base.backspin.png" "$base.sameboy.png"; then
			same=$((same + 1))
			printf 'same       %-28s at=%-9s own=%s\n' "$name-f$frames" "$at" "$own"
		else
			[[ "$own" == same ]] || differ_own_differs=$((differ_own_differs + 1))
			import=DIFFERENT
			if same_screen "$base.sameboy.png" "$base.own.replay.png"; then
				import=same
				differ_import_same=$((differ_import_same + 1))
			fi
			printf 'DIFFERENT  %-28s at=%-9s own=%-9s import=%s' "$name-f$frames" "$at" "$own" "$import"
			[[ -z "$keep" ]] || printf '  %s vs %s' "$base.backspin.png" "$base.sameboy.png"
			echo
		fi
	done
done
echo "identical: $same of $total Backspin states replayed in SameBoy"
echo "screens at the save point equal to SameBoy's: $aligned of $total"
echo "SameBoy's own BESS-only round trip at the same frame counts: $own_same of $total identical"
echo "of the $((total - same)) that differ, $differ_own_differs also differ in SameBoy's own round trip," \
	"and SameBoy imported $differ_import_same of them to the same screen as its own state"
[[ -n "$keep" ]] || rm -rf "$out"
[[ "$same" -eq "$total" ]]
