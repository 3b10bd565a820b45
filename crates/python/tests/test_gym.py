"""backspin.gym.GameBoyEnv passes Gymnasium's own checker and behaves as documented."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

import backspin  # noqa: E402
from backspin.gym import GameBoyEnv  # noqa: E402


@pytest.mark.parametrize("observation", ["screen", "ram"])
def test_check_env_passes(observation):
    env = GameBoyEnv(backspin.demo_rom(), observation=observation, max_steps=50)
    check_env(env, skip_render_check=True)


def test_reset_returns_to_the_start_state_and_steps_are_deterministic():
    env = GameBoyEnv(backspin.demo_rom(), frameskip=2, reward=lambda gb: gb.memory[0xC000])
    actions = [1, 8, 8, 0, 3, 7] * 5
    runs = []
    for _ in range(2):
        obs, info = env.reset(seed=1)
        assert info["episode_frames"] == 0
        observations = [obs]
        for action in actions:
            obs, reward, terminated, truncated, info = env.step(action)
            observations.append(obs)
        assert info["episode_frames"] == 2 * len(actions)
        runs.append(observations)
    assert all(np.array_equal(a, b) for a, b in zip(*runs))


def test_reset_from_a_given_state():
    env = GameBoyEnv(backspin.demo_rom())
    env.reset()
    for _ in range(10):
        env.step(8)
    state = env.game_boy.save_state()
    memory = env.game_boy.memory[0:0x10000]
    later, _ = env.reset(options={"state": state})
    assert env.game_boy.memory[0:0x10000] == memory
    start, info = env.reset()
    assert info["episode_frames"] == 0
    assert later.shape == start.shape


def test_bad_options_are_clear_errors():
    rom = backspin.demo_rom()
    with pytest.raises(ValueError):
        GameBoyEnv(rom, observation="sound")
    with pytest.raises(ValueError):
        GameBoyEnv(rom, frameskip=0)
    with pytest.raises(ValueError):
        GameBoyEnv(rom, actions=[])
    env = GameBoyEnv(rom)
    env.reset()
    with pytest.raises(ValueError):
        env.step(999)
