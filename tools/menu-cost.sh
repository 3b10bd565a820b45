#!/bin/sh
# What the closed menu costs the window's frames (issue 33): plays the same game in the
# player ROUNDS times with the menu's hooks in and ROUNDS times with them bypassed
# (BACKSPIN_MENU_HOOKS=off), interleaved so machine load hits both alike, and prints one
# JSON object per setting from the player's own debug statistics (one line a second:
# presented frames/s, the longest gap between presents, the mean time a redraw takes).
# The first second of each run (start-up) is left out.
#
# usage: tools/menu-cost.sh [ROM]     (no ROM: the embedded demo)
# env:   BACKSPIN_BIN (default target/release/backspin), ROUNDS (5), SECONDS_PER_RUN (6),
#        PRESENTER (--software; empty for the GPU presenter)
# Runs under Xvfb (xvfb-run) when no DISPLAY is set.
set -eu

if [ -z "${DISPLAY:-}" ]; then
    exec xvfb-run -a -s "-screen 0 1280x1024x24" "$0" "$@"
fi

bin=${BACKSPIN_BIN:-target/release/backspin}
rounds=${ROUNDS:-5}
seconds=${SECONDS_PER_RUN:-6}
presenter=${PRESENTER---software}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # hooks(on|off) round
    log="$work/$1-$2.log"
    # Its own config and data folders: the user's files are never touched.
    RUST_LOG=backspin::player::app=debug BACKSPIN_MENU_HOOKS=$1 \
        BACKSPIN_DATA_DIR="$work/data" \
        "$bin" ${rom:+"$rom"} --no-audio $presenter --config "$work/config.toml" \
        --quit-after "$seconds" 2>"$log" >/dev/null
}

rom=${1:-}
round=1
while [ "$round" -le "$rounds" ]; do
    run on "$round"
    run off "$round"
    round=$((round + 1))
done

for hooks in on off; do
    # "presented 59.7 frames/s (Playing), longest gap 18.2 ms, redraw mean 0.412 ms"
    awk -v hooks="$hooks" -v rounds="$rounds" '
        /presented .* frames\/s \(Playing\)/ {
            # The first second of a run is start-up.
            if (FILENAME != prev) { prev = FILENAME; next }
            for (i = 1; i <= NF; i++) {
                if ($i == "presented") fps = $(i + 1)
                if ($i == "gap") gap = $(i + 1)
                if ($i == "mean") redraw = $(i + 1)
            }
            n++; fps_sum += fps; redraw_sum += redraw; gap_sum += gap
            if (gap > gap_max) gap_max = gap
            if (redraw > redraw_max) redraw_max = redraw
        }
        END {
            if (n == 0) { print "{\"hooks\":\"" hooks "\",\"error\":\"no statistics logged\"}"; exit 1 }
            printf "{\"hooks\":\"%s\",\"runs\":%d,\"seconds\":%d,\"presented_fps_mean\":%.2f,", hooks, rounds, n, fps_sum / n
            printf "\"longest_gap_ms_mean\":%.2f,\"longest_gap_ms_max\":%.2f,", gap_sum / n, gap_max
            printf "\"redraw_ms_mean\":%.4f,\"redraw_ms_worst_second\":%.4f}\n", redraw_sum / n, redraw_max
        }' "$work/$hooks"-*.log
done
