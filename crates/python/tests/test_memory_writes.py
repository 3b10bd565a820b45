"""Memory writes are inputs on the timeline: they land at once, a rewind re-simulates them
at their exact cycle, and a rewind that does not repeat them forks the future away."""

import pytest

import backspin


@pytest.fixture
def gb():
    return backspin.GameBoy(backspin.demo_rom(), rewind_mib=16)


def test_writes_land_and_are_checked(gb):
    gb.run(frames=3)
    gb.memory[0xC123] = 0x42
    assert gb.memory[0xC123] == 0x42
    gb.memory[0xC200:0xC204] = b"\x01\x02\x03\x04"
    assert gb.memory[0xC200:0xC204] == b"\x01\x02\x03\x04"
    gb.memory[0xC300:0xC302] = [7, 8]
    assert gb.memory[0xC300:0xC302] == b"\x07\x08"
    gb.memory[1, 0xD010] = 0x99
    assert gb.memory[0xD010] == 0x99
    with pytest.raises(ValueError):
        gb.memory[0xC000] = 256
    with pytest.raises(TypeError):
        gb.memory[0xC000] = "x"
    with pytest.raises(ValueError):
        gb.memory[0xC000:0xC004] = b"\x00"
    with pytest.raises(IndexError):
        gb.memory[0x10000] = 0
    with pytest.raises(IndexError, match="cannot be changed"):
        gb.memory[1, 0x4000] = 0
    with pytest.raises(IndexError):
        gb.memory[5, 0xD000] = 0


def play(gb, writes):
    """Runs 120 frames, writing at frames 30 and 70; returns the WRAM after every frame."""
    wram = []
    for frame in range(1, 121):
        gb.buttons = backspin.A if frame % 20 < 10 else 0
        if writes and frame == 30:
            gb.memory[0xC0F0] = 0x5A
            gb.memory[0xFF42] = 0x10  # SCY: an I/O write acts as the CPU's would
        if writes and frame == 70:
            gb.memory[1, 0xD0F0] = 0xA5
        gb.run(frames=1)
        wram.append(gb.memory[0xC000:0xE000] + bytes([gb.memory[0xFF42]]))
    return wram


def test_rewind_across_writes_reproduces_them(gb):
    start = gb.frame
    written = play(gb, writes=True)
    for back in (1, 50, 89, 100):
        gb.rewind.seek(start + 120 - back)
        assert gb.memory[0xC000:0xE000] + bytes([gb.memory[0xFF42]]) == written[119 - back]
    # Redo with the same writes keeps the future; without them it forks.
    gb.rewind.seek(start + 60)
    gb.rewind.forward(60)
    assert gb.rewind.span[2] == start + 120
    gb.rewind.seek(start + 60)
    for frame in range(61, 80):
        gb.buttons = backspin.A if frame % 20 < 10 else 0
        gb.run(frames=1)
    assert gb.rewind.span[2] == start + 79, "playing on without the write forks"


def test_vector_writes_equal_single_writes():
    vgb = backspin.VectorGameBoy(backspin.demo_rom(), 2, threads=1, observation="ram")
    gb = backspin.GameBoy(backspin.demo_rom(), rewind_mib=0)
    vgb.step([0, 0], frames=2)
    gb.run(frames=2)
    vgb.write_memory([1], 0xC010, b"\x11\x22")
    gb.memory[0xC010:0xC012] = b"\x11\x22"
    vgb.write_memory([0, 1], 0xC020, 7)
    gb.memory[0xC020] = 7
    assert vgb.observations[1].tobytes() == gb.memory[0xC000:0xE000]
    vgb.step([0, 0], frames=3)
    gb.run(frames=3)
    assert vgb.read_memory(1, 0xC000, 0xE000) == gb.memory[0xC000:0xE000]
    with pytest.raises(IndexError):
        vgb.write_memory([0], 0xFFFF, b"\x00\x00")
    with pytest.raises(ValueError):
        vgb.write_memory([0], 0xC000, 300)


@pytest.mark.parametrize("rewind_mib", [0, 16])
def test_load_state_undoes_writes_made_since_the_last_frame(rewind_mib):
    """Poke, then load at the same instant: the machine is exactly the saved one."""
    gb = backspin.GameBoy(backspin.demo_rom(), rewind_mib=rewind_mib)
    gb.run(frames=10)
    saved = gb.save_state()
    wram = gb.memory[0xC000:0xE000]
    gb.memory[0xC000:0xE000] = bytes(b ^ 0xFF for b in wram)
    gb.load_state(saved)
    assert gb.memory[0xC000:0xE000] == wram
    assert gb.save_state() == saved
    vgb = backspin.VectorGameBoy(backspin.demo_rom(), 2, threads=1)
    vgb.load_states([0, 1], saved)
    vgb.write_memory([1], 0xC123, (wram[0x123] + 1) & 0xFF)
    vgb.load_states([1], saved)
    assert vgb.read_memory(1, 0xC000, 0xE000) == wram
