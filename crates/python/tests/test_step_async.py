"""VectorGameBoy.step_async / step_wait (and GameBoyVectorEnv's): the same machines and
observations as `step`, and a step in flight guards the envs from every other call."""

import gc
import threading

import numpy as np
import pytest

import backspin

BUTTONS = [0, backspin.A, backspin.RIGHT | backspin.B, backspin.START, backspin.DOWN]


def per_env_buttons(step, n):
    return [BUTTONS[(step * 3 + i * 7) % len(BUTTONS)] for i in range(n)]


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_step_async_equals_step(threads):
    n, frames = 5, 3
    rom = backspin.demo_rom()
    synchronous = backspin.VectorGameBoy(rom, n, threads=threads)
    overlapped = backspin.VectorGameBoy(rom, n, threads=threads)
    for step in range(30):
        buttons = per_env_buttons(step, n)
        synchronous.step(buttons, frames=frames)
        overlapped.step_async(np.array(buttons, dtype=np.uint8), frames=frames)
        # Python work meanwhile, as a policy's would be.
        next_buttons = per_env_buttons(step + 1, n)
        assert len(next_buttons) == n
        overlapped.step_wait()
        assert np.array_equal(overlapped.observations, synchronous.observations), step
    assert overlapped.save_states() == synchronous.save_states()
    # Both kinds of step may follow each other.
    synchronous.step([backspin.A] * n, frames=2)
    overlapped.step([backspin.A] * n, frames=2)
    assert np.array_equal(overlapped.observations, synchronous.observations)


def test_calls_during_a_step_in_flight_are_refused():
    vgb = backspin.VectorGameBoy(backspin.demo_rom(), 3, threads=2)
    state = vgb.save_states([0])[0]
    vgb.step_async([backspin.A] * 3, frames=30)
    refused = [
        lambda: vgb.step([0] * 3),
        lambda: vgb.step_async([0] * 3),
        lambda: vgb.peek(0, 0xC000),
        lambda: vgb.frame(0),
        lambda: vgb.read_memory(0, 0xC000, 0xC010),
        lambda: vgb.write_memory([0], 0xC000, 1),
        lambda: vgb.save_states(),
        lambda: vgb.load_states([0], state),
        lambda: vgb.reset(),
    ]
    for call in refused:
        with pytest.raises(RuntimeError, match="step_wait"):
            call()
    # What touches no env still answers.
    assert (vgb.num_envs, len(vgb), vgb.threads, vgb.model) == (3, 3, 2, "dmg")
    assert vgb.observations.shape == (3, 144, 160, 3)
    vgb.step_wait()
    with pytest.raises(RuntimeError, match="step_async"):
        vgb.step_wait()
    assert vgb.frame(0) == 30
    with pytest.raises(ValueError):
        vgb.step_async([0, 0])
    with pytest.raises(RuntimeError):
        vgb.step_wait()  # a refused start starts nothing


def test_step_wait_with_a_timeout_can_be_called_again():
    rom = backspin.demo_rom()
    vgb = backspin.VectorGameBoy(rom, 2, threads=2)
    single = backspin.GameBoy(rom, rewind_mib=0)
    vgb.step_async([backspin.RIGHT] * 2, frames=60)
    single.run(frames=60, buttons=backspin.RIGHT)
    timeouts = 0
    while True:
        try:
            vgb.step_wait(timeout=0)
            break
        except TimeoutError:
            timeouts += 1  # as many as the step takes; none if it is already done
    print(f"{timeouts} timeouts")
    assert np.array_equal(vgb.observations[1], single.screen)
    for bad in (-1.0, float("nan"), float("inf")):
        vgb.step_async([0, 0])
        with pytest.raises(ValueError):
            vgb.step_wait(timeout=bad)
        vgb.step_wait()


def test_started_on_one_thread_waited_for_on_another():
    rom = backspin.demo_rom()
    vgb = backspin.VectorGameBoy(rom, 3, threads=2)
    single = backspin.GameBoy(rom, rewind_mib=0)
    vgb.step_async([backspin.A] * 3, frames=20)
    waiter = threading.Thread(target=vgb.step_wait)
    waiter.start()
    waiter.join(timeout=60)
    assert not waiter.is_alive(), "step_wait on another thread never returned"
    single.run(frames=20, buttons=backspin.A)
    assert np.array_equal(vgb.observations[2], single.screen)


def test_dropping_a_vector_with_a_step_in_flight():
    """The envs outlive the step that uses them: dropping the vector waits for it."""
    for threads in (1, 2):
        vgb = backspin.VectorGameBoy(backspin.demo_rom(), 4, threads=threads)
        observations = vgb.observations
        vgb.step_async([backspin.A] * 4, frames=30)
        del vgb
        gc.collect()
        assert observations.shape == (4, 144, 160, 3)


gymnasium = pytest.importorskip("gymnasium")
from backspin.gym import GameBoyVectorEnv  # noqa: E402


def test_vector_env_step_async_equals_step():
    rom = backspin.demo_rom()
    kwargs = dict(frameskip=2, max_steps=7, reward=lambda v, i: v.peek(i, 0xC000))
    synchronous = GameBoyVectorEnv(rom, 3, **kwargs)
    overlapped = GameBoyVectorEnv(rom, 3, **kwargs)
    assert np.array_equal(synchronous.reset(seed=1)[0], overlapped.reset(seed=1)[0])
    rng = np.random.default_rng(5)
    for step in range(20):  # through two autoresets
        actions = rng.integers(0, synchronous.single_action_space.n, 3)
        expected = synchronous.step(actions)
        overlapped.step_async(actions)
        got = overlapped.step_wait()
        for a, b in zip(expected[:4], got[:4]):
            assert np.array_equal(a, b), step


def test_vector_env_async_misuse_raises_gymnasium_errors():
    venv = GameBoyVectorEnv(backspin.demo_rom(), 2)
    venv.reset()
    with pytest.raises(gymnasium.error.NoAsyncCallError):
        venv.step_wait()
    venv.step_async(np.array([1, 2]))
    for call in (
        lambda: venv.step_async(np.array([1, 2])),
        lambda: venv.step(np.array([1, 2])),
        lambda: venv.reset(),
        lambda: venv.save_states(),
        lambda: venv.load_states([0], b""),
    ):
        with pytest.raises(gymnasium.error.AlreadyPendingCallError):
            call()
    obs, rewards, terminated, truncated, info = venv.step_wait()
    assert obs.shape == (2, 144, 160, 3)
    with pytest.raises(ValueError):
        venv.step_async(np.array([1, 99]))
    with pytest.raises(gymnasium.error.NoAsyncCallError):
        venv.step_wait()
