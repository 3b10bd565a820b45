"""Times the Python API's hot calls on a ROM (default: the demo) and prints JSON:
run(24) steps per second with and without drawing, save_state + load_state, and
rewind.back(600). Usage: python benches/api_speed.py [ROM] [--model auto|dmg|cgb]"""

import argparse
import json

import backspin
from timing import best_of


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("rom", nargs="?")
    parser.add_argument("--model", default="auto")
    parser.add_argument("--steps", type=int, default=250)
    args = parser.parse_args()
    rom = args.rom or backspin.demo_rom()
    gb = backspin.GameBoy(rom, model=args.model)
    gb.run(frames=120)

    def steps(draw):
        def go():
            for _ in range(args.steps):
                gb.run(frames=24, draw=draw)
        return args.steps / best_of(3, go)

    state = gb.save_state()
    round_trips = 200
    save_load = best_of(3, lambda: [gb.load_state(gb.save_state()) for _ in range(round_trips)])
    save_only = best_of(3, lambda: [gb.save_state() for _ in range(round_trips)])
    # With rewind off (the Gym env's setting): a load is then not kept in any history.
    off = backspin.GameBoy(rom, model=args.model, rewind_mib=0)
    off.run(frames=120)
    off_save_load = best_of(
        3, lambda: [off.load_state(off.save_state()) for _ in range(round_trips)])
    fresh = backspin.GameBoy(rom, model=args.model)
    fresh.run(frames=1200)
    back = best_of(5, lambda: (fresh.rewind.back(600), fresh.rewind.forward(600)))
    one_back = best_of(5, lambda: (fresh.rewind.seek(600),))
    print(json.dumps({
        "rom": gb.title,
        "model": gb.model,
        "run24_draw_last_steps_per_s": round(steps("last"), 1),
        "run24_draw_none_steps_per_s": round(steps("none"), 1),
        "state_bytes": len(state),
        "save_state_us": round(save_only / round_trips * 1e6, 1),
        "save_plus_load_us": round(save_load / round_trips * 1e6, 1),
        "save_plus_load_rewind_off_us": round(off_save_load / round_trips * 1e6, 1),
        "rewind_back_600_ms": round(one_back * 1e3, 3),
        "rewind_back_forward_600_ms": round(back * 1e3, 3),
    }, indent=1))


if __name__ == "__main__":
    main()
