"""The GameBoy API on Backspin's own demo cartridge: running, the screen, memory, save
states, rewind, and clear exceptions for bad input."""

import numpy as np
import pytest

import backspin


@pytest.fixture
def gb():
    return backspin.GameBoy(backspin.demo_rom())


def test_power_on_and_run(gb):
    assert gb.frame == 0
    assert gb.model == "dmg"
    gb.run(frames=30)
    assert gb.frame == 30
    assert gb.cycles > 0
    screen = gb.screen
    assert screen.shape == backspin.SCREEN_SHAPE == (144, 160, 3)
    assert screen.dtype == np.uint8


def test_screen_is_one_array_updated_in_place(gb):
    screen = gb.screen
    gb.run(frames=120)
    assert gb.screen is screen or np.shares_memory(gb.screen, screen)
    before = screen.copy()
    gb.run(frames=1, draw="none")
    assert np.array_equal(screen, before), "draw='none' leaves the screen alone"
    assert len(np.unique(screen.reshape(-1, 3), axis=0)) > 1, "the demo draws something"


def test_draw_modes_change_only_the_pixels():
    # Seeded button changes, so the demo's picture moves; every 24th frame drawn.
    runs = {draw: backspin.GameBoy(backspin.demo_rom()) for draw in ("last", "all", "none")}
    for step in range(10):
        buttons = [backspin.RIGHT, backspin.A | backspin.DOWN, 0, backspin.LEFT][step % 4]
        for draw, gb in runs.items():
            gb.run(frames=24, buttons=buttons, draw=draw)
        states = {draw: gb.save_state() for draw, gb in runs.items()}
        assert states["last"] == states["all"] == states["none"], f"state differs at step {step}"
        assert np.array_equal(runs["last"].screen, runs["all"].screen), f"picture, step {step}"
    assert runs["none"].frame == 240


def test_rom_from_a_path(tmp_path):
    path = tmp_path / "demo.gb"
    path.write_bytes(backspin.demo_rom())
    gb = backspin.GameBoy(path)
    gb.run(frames=2)
    assert gb.title == backspin.GameBoy(str(path)).title


def test_same_inputs_same_machine():
    a = backspin.GameBoy(backspin.demo_rom())
    b = backspin.GameBoy(backspin.demo_rom())
    for step in range(20):
        buttons = [0, backspin.A, backspin.RIGHT | backspin.B, backspin.START][step % 4]
        a.run(frames=7, buttons=buttons)
        b.run(frames=7, buttons=buttons)
    assert np.array_equal(a.screen, b.screen)
    assert a.memory[0xC000:0xE000] == b.memory[0xC000:0xE000]
    assert a.save_state() == b.save_state()


def test_save_then_load_equals_a_straight_run(gb):
    straight = backspin.GameBoy(backspin.demo_rom())
    gb.run(frames=60, buttons=backspin.RIGHT)
    state = gb.save_state()
    assert isinstance(state, bytes)
    gb.run(frames=90, buttons=backspin.A)  # a different future, then back
    gb.load_state(state)
    gb.run(frames=60, buttons=0)
    straight.run(frames=60, buttons=backspin.RIGHT)
    straight.run(frames=60, buttons=0)
    assert np.array_equal(gb.screen, straight.screen)
    assert gb.memory[0xC000:0xE000] == straight.memory[0xC000:0xE000]


def test_bad_states_raise_and_change_nothing(gb):
    gb.run(frames=10)
    before = gb.save_state()
    with pytest.raises(backspin.StateError):
        gb.load_state(b"")
    with pytest.raises(backspin.StateError):
        gb.load_state(before[: len(before) // 2])
    flipped = bytearray(before)
    flipped[len(flipped) // 2] ^= 0x10
    with pytest.raises(backspin.StateError):
        gb.load_state(bytes(flipped))
    assert gb.save_state() == before


def test_another_roms_state_is_refused(gb):
    other_rom = bytearray(backspin.demo_rom())
    other_rom[0x134:0x138] = b"ZZZZ"
    other = backspin.GameBoy(bytes(other_rom))
    with pytest.raises(backspin.StateError, match="ZZZZ|another|other"):
        gb.load_state(other.save_state())


def test_rewind_back_and_forward(gb):
    screens = {}
    for frame in range(1, 121):
        gb.run(frames=1, buttons=backspin.RIGHT if frame % 30 < 15 else 0)
        screens[frame] = gb.screen.copy()
    oldest, position, newest = gb.rewind.span
    assert (oldest, position, newest) == (0, 120, 120)
    gb.rewind.back(60)
    assert gb.frame == 60
    assert np.array_equal(gb.screen, screens[60])
    gb.rewind.forward(30)
    assert gb.frame == 90
    assert np.array_equal(gb.screen, screens[90])
    with pytest.raises(backspin.RewindError):
        gb.rewind.back(1000)
    assert gb.frame == 90


def test_rewind_off(gb):
    off = backspin.GameBoy(backspin.demo_rom(), rewind_mib=0)
    off.run(frames=5)
    with pytest.raises(backspin.RewindError):
        off.rewind.back(1)


def test_memory_views(gb):
    gb.run(frames=5)
    rom = backspin.demo_rom()
    assert gb.memory[0x0134] == rom[0x134]
    assert gb.memory[0x0100:0x0104] == rom[0x100:0x104]
    assert len(gb.memory[0xC000:0xD000]) == 0x1000
    assert gb.memory[1, 0x4000] == rom[0x4000]
    assert gb.memory[0, 0xC000] == gb.memory[0xC000]
    assert len(gb.memory) == 0x10000
    with pytest.raises(IndexError):
        gb.memory[0x10000]
    with pytest.raises(IndexError):
        gb.memory[-1]
    with pytest.raises(IndexError):
        gb.memory[200, 0x4000]
    with pytest.raises(TypeError):
        gb.memory["C000"]


def test_run_until_an_address(gb):
    # The demo's entry point jumps to its main code at $0150.
    assert gb.run_until(pc=0x0150, max_frames=1)
    assert gb.registers["pc"] == 0x0150
    assert gb.frame == 0
    assert not gb.run_until(pc=0x0000, max_frames=2)
    assert gb.frame == 2


def test_registers(gb):
    registers = gb.registers
    assert set(registers) == {"pc", "sp", "a", "f", "b", "c", "d", "e", "h", "l", "ime"}
    assert registers["pc"] == 0x0100  # no boot ROM: the post-boot state


def test_bad_arguments():
    rom = backspin.demo_rom()
    with pytest.raises(backspin.RomError):
        backspin.GameBoy(b"\x00" * 100)
    with pytest.raises(backspin.RomError):
        backspin.GameBoy("/nonexistent/game.gb")
    with pytest.raises(TypeError):
        backspin.GameBoy(12345)
    with pytest.raises(ValueError):
        backspin.GameBoy(rom, model="gba")
    with pytest.raises(ValueError):
        backspin.GameBoy(rom, rewind_mib=1 << 20)
    with pytest.raises(backspin.RomError):
        backspin.GameBoy(rom, boot_rom=b"\x00" * 10)
    gb = backspin.GameBoy(rom)
    with pytest.raises(ValueError):
        gb.run(frames=1, draw="sometimes")
    with pytest.raises(OverflowError):
        gb.run(frames=-1)
    with pytest.raises(OverflowError):
        gb.run(frames=1, buttons=256)
    assert issubclass(backspin.StateError, backspin.BackspinError)


def test_rewind_crosses_a_state_load(gb):
    gb.run(frames=60, buttons=backspin.RIGHT)
    state = gb.save_state()
    screens = {}
    for _ in range(60):
        gb.run(frames=1, buttons=backspin.A)
        screens[gb.frame] = gb.screen.copy()
    gb.load_state(state)
    assert gb.frame == 120, "frames keep counting across a load"
    gb.run(frames=10)
    gb.rewind.back(11)
    assert gb.frame == 119
    assert np.array_equal(gb.screen, screens[119]), "the game as it was before the load"
