"""Backspin: a cycle-accurate Game Boy (and Game Boy Color) emulator for scripts, bots and
research, with save states and rewind from code.

    import backspin
    gb = backspin.GameBoy("game.gb")              # model="auto": CGB for colour cartridges
    gb.run(frames=24, buttons=backspin.A | backspin.RIGHT)   # releases the GIL
    gb.screen                                     # (144, 160, 3) uint8, updated in place
    gb.memory[0xC000], gb.memory[0xC000:0xC100], gb.memory[1, 0x4000]
    gb.memory[0xC000] = 1; gb.memory[1, 0xD000] = 2   # writes: inputs on the timeline
    s = gb.save_state(); gb.load_state(s)         # bytes in Backspin's save-state format
    gb.rewind.back(600); gb.rewind.forward(60); gb.rewind.span
    gb.run_until(pc=0x0150, max_frames=10)
    gb.load_symbols("game.sym"); gb.run_until(pc="Main")   # or GameBoy(..., sym="game.sym")

    vgb = backspin.VectorGameBoy("game.gb", num_envs=8)   # N machines on Rust threads
    vgb.step([backspin.A] * 8, frames=4)          # releases the GIL
    vgb.observations                              # (8, 144, 160, 3) uint8, in place
    vgb.load_states([1, 2], vgb.save_states([0])[0])   # "swarming"
    vgb.step_async(buttons, frames=4); ...; vgb.step_wait()   # overlap your own work

Every error from bad input is a ``backspin.BackspinError`` subclass (``RomError``,
``StateError``, ``RewindError``, ``SymbolError``) or a ``TypeError``/``ValueError``/``IndexError``.
"""

from backspin._backspin import (
    A,
    B,
    DOWN,
    LEFT,
    RIGHT,
    SCREEN_SHAPE,
    SELECT,
    START,
    UP,
    BackspinError,
    GameBoy,
    Memory,
    Rewind,
    RewindError,
    RomError,
    StateError,
    SymbolError,
    VectorGameBoy,
    demo_rom,
)

__all__ = [
    "A",
    "B",
    "DOWN",
    "LEFT",
    "RIGHT",
    "SCREEN_SHAPE",
    "SELECT",
    "START",
    "UP",
    "BackspinError",
    "GameBoy",
    "Memory",
    "Rewind",
    "RewindError",
    "RomError",
    "StateError",
    "SymbolError",
    "VectorGameBoy",
    "demo_rom",
]
