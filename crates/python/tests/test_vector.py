"""backspin.VectorGameBoy and backspin.gym.GameBoyVectorEnv: N emulators stepped on Rust
threads give exactly what N single GameBoys give with the same inputs."""

import random

import numpy as np
import pytest

import backspin

BUTTONS = [0, backspin.A, backspin.RIGHT | backspin.B, backspin.START, backspin.DOWN]


def per_env_buttons(step, n):
    return [BUTTONS[(step * 3 + i * 7) % len(BUTTONS)] for i in range(n)]


@pytest.mark.parametrize("threads", [1, 2, 3, 5])
def test_vector_equals_single_game_boys(threads):
    n, frames = 5, 3
    rom = backspin.demo_rom()
    vgb = backspin.VectorGameBoy(rom, n, threads=threads)
    singles = [backspin.GameBoy(rom, rewind_mib=0) for _ in range(n)]
    assert vgb.observations.shape == (n, 144, 160, 3)
    for step in range(40):
        buttons = per_env_buttons(step, n)
        vgb.step(np.array(buttons, dtype=np.uint8), frames=frames)
        for gb, b in zip(singles, buttons):
            gb.run(frames=frames, buttons=b)
        for i, gb in enumerate(singles):
            assert np.array_equal(vgb.observations[i], gb.screen), (step, i)
        if step == 20:
            # Swarm: every env (and every single GameBoy) goes on from env 1's state.
            state = vgb.save_states([1])[0]
            assert state == singles[1].save_state()
            vgb.load_states(list(range(n)), state)
            for gb in singles:
                gb.load_state(state)
            for i, gb in enumerate(singles):
                assert np.array_equal(vgb.observations[i], gb.screen), ("load", i)
    assert vgb.save_states() == [gb.save_state() for gb in singles]
    assert [vgb.frame(i) for i in range(n)] == [gb.frame for gb in singles]


@pytest.mark.parametrize("threads, n, frames", [(2, 9, 5), (3, 11, 4), (4, 6, 7)])
def test_envs_handed_between_threads_mid_step(threads, n, frames):
    """Threads set envs aside between frames and take over each other's at the end of a
    step: an env's frames may run on several threads, and must make what one GameBoy
    makes."""
    rom = backspin.demo_rom()
    for observation in ("screen", "ram"):
        vgb = backspin.VectorGameBoy(rom, n, threads=threads, observation=observation)
        singles = [backspin.GameBoy(rom, rewind_mib=0) for _ in range(n)]
        for step in range(15):
            buttons = per_env_buttons(step, n)
            vgb.step(buttons, frames=frames)
            for gb, b in zip(singles, buttons):
                gb.run(frames=frames, buttons=b)
            for i, gb in enumerate(singles):
                if observation == "screen":
                    expected = gb.screen
                else:
                    expected = np.frombuffer(bytes(gb.memory[0xC000:0xE000]), np.uint8)
                assert np.array_equal(vgb.observations[i], expected), (observation, step, i)
        assert vgb.save_states() == [gb.save_state() for gb in singles]


def test_random_shapes_match_one_thread():
    """Random env and thread counts (threads may outnumber the CPUs, so threads run at very
    different speeds and hand envs over), frame counts including 0, and steps through
    `step` or `step_async` with waits that time out: always what one thread makes."""
    seed = 20261126
    print(f"seed {seed}")
    rng = random.Random(seed)
    rom = backspin.demo_rom()
    for trial in range(12):
        n, threads = rng.randint(1, 9), rng.randint(2, 5)
        observation = rng.choice(["screen", "ram"])
        pooled = backspin.VectorGameBoy(rom, n, threads=threads, observation=observation)
        alone = backspin.VectorGameBoy(rom, n, threads=1, observation=observation)
        for step in range(20):
            buttons = [rng.choice(BUTTONS) for _ in range(n)]
            frames = rng.choice([0, 1, 2, 3, 5])
            if rng.random() < 0.3:
                pooled.step_async(buttons, frames=frames)
                while True:
                    try:
                        pooled.step_wait(timeout=rng.choice([0, 0.0001, None]))
                        break
                    except TimeoutError:
                        pass
            else:
                pooled.step(buttons, frames=frames)
            alone.step(buttons, frames=frames)
            assert np.array_equal(pooled.observations, alone.observations), (trial, step)
        assert pooled.save_states() == alone.save_states(), trial


def test_steps_from_other_python_threads():
    """The pool waits for its workers on whichever thread calls `step`, not only on the
    thread that made it."""
    import threading

    rom = backspin.demo_rom()
    vgb = backspin.VectorGameBoy(rom, 3, threads=2)
    single = backspin.GameBoy(rom, rewind_mib=0)
    for step in range(6):
        buttons = per_env_buttons(step, 3)
        if step % 2:
            worker = threading.Thread(target=vgb.step, args=(buttons,), kwargs={"frames": 4})
            worker.start()
            worker.join(timeout=60)
            assert not worker.is_alive(), "a step from another thread never returned"
        else:
            vgb.step(buttons, frames=4)
        single.run(frames=4, buttons=buttons[0])
        assert np.array_equal(vgb.observations[0], single.screen), step


def test_ram_observation_is_work_ram():
    rom = backspin.demo_rom()
    vgb = backspin.VectorGameBoy(rom, 2, observation="ram")
    gb = backspin.GameBoy(rom, rewind_mib=0)
    vgb.step([backspin.RIGHT, backspin.RIGHT], frames=30)
    gb.run(frames=30, buttons=backspin.RIGHT)
    assert vgb.observations.shape == (2, 8192)
    assert vgb.observations[1].tobytes() == gb.memory[0xC000:0xE000]
    # Range reads (one call) against single-byte reads.
    assert gb.memory[0xC000:0xE000] == bytes(gb.memory[a] for a in range(0xC000, 0xE000))
    assert vgb.read_memory(0, 0xC000, 0xE000) == gb.memory[0xC000:0xE000]
    assert vgb.peek(1, 0xC010) == gb.memory[0xC010]


def test_load_states_swarms_one_state_to_many():
    rom = backspin.demo_rom()
    vgb = backspin.VectorGameBoy(rom, 4, threads=2)
    for step in range(10):
        vgb.step(per_env_buttons(step, 4), frames=5)
    leader = vgb.save_states([2])[0]
    vgb.load_states([0, 1, 3], leader)
    # A loaded env starts counting frames afresh (the state file's frame is metadata), so
    # compare machines by their memory and screens.
    def memories():
        return [vgb.read_memory(i, 0, 0x10000) for i in range(4)]

    assert len(set(memories())) == 1
    # The screen is not part of a state (as with GameBoy.load_state it shows once the next
    # frame is drawn), so compare screens after a frame.
    vgb.step([backspin.A] * 4, frames=10)
    assert len(set(memories())) == 1
    assert all(np.array_equal(vgb.observations[i], vgb.observations[2]) for i in range(4))
    # One state per index.
    vgb.step([backspin.A, backspin.RIGHT, 0, 0], frames=30)
    before = memories()
    assert before[0] != before[1]
    states = vgb.save_states([0, 1])
    vgb.reset([1])
    vgb.load_states([1, 0], states)
    after = memories()
    assert (after[0], after[1]) == (before[1], before[0])


def test_bad_arguments_are_exceptions():
    rom = backspin.demo_rom()
    with pytest.raises(ValueError):
        backspin.VectorGameBoy(rom, 0)
    with pytest.raises(ValueError):
        backspin.VectorGameBoy(rom, 2, threads=0)
    with pytest.raises(ValueError):
        backspin.VectorGameBoy(rom, 2, observation="sound")
    with pytest.raises(backspin.RomError):
        backspin.VectorGameBoy(b"not a rom", 2)
    vgb = backspin.VectorGameBoy(rom, 2)
    with pytest.raises(ValueError):
        vgb.step([0, 0, 0])
    with pytest.raises((OverflowError, TypeError, ValueError)):
        vgb.step([0, 300])
    with pytest.raises(IndexError):
        vgb.save_states([2])
    with pytest.raises(IndexError):
        vgb.peek(-1, 0)
    with pytest.raises(IndexError):
        vgb.read_memory(0, 0xE000, 0x20000)
    good = vgb.save_states([0])[0]
    before = vgb.save_states()
    with pytest.raises(backspin.StateError):
        vgb.load_states([0, 1], [good, good[:100]])
    assert vgb.save_states() == before, "a failed load changes no env"
    with pytest.raises(ValueError):
        vgb.load_states([0, 1], [good])
    with pytest.raises(TypeError):
        vgb.load_states([0], 42)


gymnasium = pytest.importorskip("gymnasium")
from backspin.gym import GameBoyEnv, GameBoyVectorEnv  # noqa: E402


def test_vector_env_declares_its_autoreset_mode():
    env = GameBoyVectorEnv(backspin.demo_rom(), 2)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, info = env.reset(seed=0)
    assert obs.shape == (2, 144, 160, 3) and obs in env.observation_space
    assert env.action_space.sample().shape == (2,)


def test_vector_env_equals_single_envs():
    rom = backspin.demo_rom()
    n = 3
    venv = GameBoyVectorEnv(rom, n, frameskip=2, reward=lambda v, i: v.peek(i, 0xC000))
    envs = [GameBoyEnv(rom, frameskip=2, reward=lambda gb: gb.memory[0xC000]) for _ in range(n)]
    obs, _ = venv.reset(seed=3)
    singles = [env.reset(seed=3)[0] for env in envs]
    assert all(np.array_equal(obs[i], singles[i]) for i in range(n))
    rng = np.random.default_rng(7)
    for _ in range(30):
        actions = rng.integers(0, venv.single_action_space.n, n)
        obs, rewards, terminated, truncated, _ = venv.step(actions)
        for i, env in enumerate(envs):
            single, reward, _, _, _ = env.step(int(actions[i]))
            assert np.array_equal(obs[i], single)
            assert rewards[i] == reward


def test_vector_env_autoresets_on_the_next_step():
    rom = backspin.demo_rom()
    venv = GameBoyVectorEnv(rom, 2, max_steps=3, reward=lambda v, i: 1.0)
    first, _ = venv.reset()
    for step in range(3):
        obs, rewards, terminated, truncated, _ = venv.step(np.array([1, 8]))
    assert truncated.all() and not terminated.any()
    obs, rewards, terminated, truncated, _ = venv.step(np.array([1, 8]))
    assert np.array_equal(obs, first), "the step after truncation returns the start"
    assert (rewards == 0).all() and not truncated.any()
    obs, rewards, _, _, _ = venv.step(np.array([1, 8]))
    assert (rewards == 1).all()
    with pytest.raises(ValueError):
        venv.step(np.array([1, 99]))
