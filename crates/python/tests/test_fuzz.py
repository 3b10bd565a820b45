"""10,000 random API calls with random arguments: every failure is a Python exception,
never a crash of the interpreter, and the machine keeps working afterwards."""

import random

import backspin

VALUES = [
    None, 0, 1, -1, 7, 255, 256, 0xFFFF, 0x10000, -(1 << 70), 1 << 70, 0.5, float("nan"),
    "", "last", "none", "dmg", "cgb", "auto", b"", b"\x00" * 64, bytearray(3), [], (), (1,),
    (1, 2), (0, 0xC000), (-1, 5), (1, 0x4000, 9), slice(None), slice(0xC000, 0xC010),
    slice(5, 1), slice(0, 10, 2), object(),
]


def test_ten_thousand_random_calls(tmp_path):
    seed = 20261125
    print(f"seed {seed}")
    rng = random.Random(seed)
    gb = backspin.GameBoy(backspin.demo_rom(), rewind_mib=4)
    # Labels in banks the demo does not have, and outside ROM, for run_until by name.
    symbols = tmp_path / "odd.sym"
    symbols.write_text("FFFF:4000 HighBank\n00:FFFF Top\n05:0000 Zero\n01:0150 Main1\n")
    gb.load_symbols(symbols)
    saved = gb.save_state()
    calls = 0
    raised = 0

    def flip_one_bit(data):
        damaged = bytearray(data)
        damaged[rng.randrange(len(damaged))] ^= 1 << rng.randrange(8)
        return bytes(damaged)

    def pick():
        return rng.choice(VALUES)

    def count():
        """A frame count: any bad value, but no valid one large enough to take long."""
        value = pick()
        return value if not isinstance(value, int) or not 2 < value < 1 << 64 else 2

    actions = [
        lambda: gb.run(frames=count(), buttons=pick(), draw=pick()),
        lambda: gb.run(rng.randrange(3)),
        lambda: gb.run_until(pick(), count()),
        lambda: gb.run_until(rng.choice(["HighBank", "Top", "Zero", "Main1", "None"]), count()),
        lambda: gb.memory[pick()],
        lambda: gb.memory.__setitem__(pick(), pick()),
        lambda: gb.memory.__setitem__(rng.randrange(0x10000), rng.randrange(256)),
        lambda: gb.memory.__setitem__((rng.randrange(9), rng.randrange(0x10000)), pick()),
        lambda: gb.rewind.back(count()),
        lambda: gb.rewind.forward(count()),
        lambda: gb.rewind.seek(pick()),
        lambda: gb.rewind.span,
        lambda: gb.load_state(pick()),
        lambda: gb.load_state(saved[: rng.randrange(len(saved))]),
        lambda: gb.load_state(flip_one_bit(saved)),
        lambda: setattr(gb, "buttons", pick()),
        lambda: backspin.GameBoy(pick(), model=pick()),
        lambda: gb.registers,
        lambda: gb.reset(),
    ]
    for _ in range(10_000):
        calls += 1
        try:
            rng.choice(actions)()
        except (backspin.BackspinError, TypeError, ValueError, IndexError, OverflowError,
                RuntimeError):
            raised += 1
    print(f"{calls} calls, {raised} raised")
    gb.load_state(saved)
    gb.run(frames=3)
    assert gb.screen.shape == (144, 160, 3)


def test_ten_thousand_random_vector_calls():
    seed = 20261126
    print(f"seed {seed}")
    rng = random.Random(seed)
    vgb = backspin.VectorGameBoy(backspin.demo_rom(), 3, threads=2)
    saved = vgb.save_states()
    raised = 0

    def pick():
        return rng.choice(VALUES)

    def small():
        """Any bad value, but no valid one large enough to take long."""
        value = pick()
        return value if not isinstance(value, int) or not 2 < value < 1 << 64 else 2

    def indices():
        return rng.choice([pick(), [0, 1], [2], [0, 3], [-1], list(range(3)), [1 << 70]])

    actions = [
        lambda: vgb.step(rng.choice([pick(), [0, 1, 2], [0] * 3, [1 << 70] * 3]), small()),
        lambda: vgb.step_async(rng.choice([pick(), [0, 1, 2], [1 << 70] * 3]), small()),
        lambda: vgb.step_wait(rng.choice([pick(), None, 0.0, 1e-6])),
        lambda: vgb.save_states(indices()),
        lambda: vgb.load_states(indices(), pick()),
        lambda: vgb.load_states(indices(), rng.choice(saved)[: rng.randrange(len(saved[0]))]),
        lambda: vgb.load_states([0, 1, 2], saved),
        lambda: vgb.reset(indices()),
        lambda: vgb.peek(pick(), pick()),
        lambda: vgb.read_memory(pick(), pick(), pick()),
        lambda: vgb.write_memory(indices(), pick(), pick()),
        lambda: vgb.frame(pick()),
        lambda: backspin.VectorGameBoy(pick(), small(), model=pick(), threads=pick()),
        lambda: backspin.VectorGameBoy(backspin.demo_rom(), 2, observation=pick()),
    ]
    for _ in range(10_000):
        try:
            rng.choice(actions)()
        except (backspin.BackspinError, TypeError, ValueError, IndexError, OverflowError,
                TimeoutError):
            raised += 1
        except RuntimeError as error:
            # A step in flight refuses other calls; a panicked thread would be a bug.
            assert "panicked" not in str(error), error
            raised += 1
    print(f"10000 calls, {raised} raised")
    try:
        vgb.step_wait()
    except RuntimeError:
        pass  # no step in flight
    vgb.load_states([0, 1, 2], saved)
    vgb.step([0, 0, 0], frames=3)
    assert vgb.observations.shape == (3, 144, 160, 3)
