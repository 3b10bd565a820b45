"""Gymnasium environments over Backspin.

``GameBoyEnv`` is one Game Boy as a ``gymnasium.Env``: the observation is the screen or the
work RAM, an action is an index into a list of button combinations held for ``frameskip``
frames, and the reward and termination are the caller's callables of the ``GameBoy``.

    from backspin.gym import GameBoyEnv
    env = GameBoyEnv("game.gb", frameskip=4,
                     reward=lambda gb: gb.memory[0xC0A0],
                     terminated=lambda gb: gb.memory[0xC0A1] == 0)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

import backspin

#: Nothing, each button alone, and the pad's diagonals: a compact default action set.
DEFAULT_ACTIONS: tuple[int, ...] = (
    0,
    backspin.A,
    backspin.B,
    backspin.START,
    backspin.SELECT,
    backspin.UP,
    backspin.DOWN,
    backspin.LEFT,
    backspin.RIGHT,
    backspin.UP | backspin.LEFT,
    backspin.UP | backspin.RIGHT,
    backspin.DOWN | backspin.LEFT,
    backspin.DOWN | backspin.RIGHT,
)

#: Work RAM C000-DFFF: the observation with ``observation="ram"``.
RAM_START, RAM_END = 0xC000, 0xE000


class GameBoyEnv(gymnasium.Env):
    """One Game Boy as a Gymnasium environment.

    Args:
        rom: the cartridge (bytes or a path).
        model: "auto", "dmg" or "cgb".
        observation: "screen" (144x160x3 uint8) or "ram" (the 8 KiB at C000-DFFF).
        actions: button combinations (ints of ``backspin.A | ...``), one per action index.
        frameskip: frames each action is held for (the observation is the last one).
        reward: ``reward(gb) -> float`` after each step; 0.0 when not given.
        terminated: ``terminated(gb) -> bool`` after each step; never when not given.
        max_steps: steps before ``truncated`` is set (None: never).
        start_state: a save state (``GameBoy.save_state()``) every reset returns to; by
            default the power-on state. ``reset(options={"state": s})`` overrides it once.
        render_mode: None or "rgb_array".
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 60}

    def __init__(
        self,
        rom: bytes | str | os.PathLike[str],
        *,
        model: str = "auto",
        observation: str = "screen",
        actions: Sequence[int] = DEFAULT_ACTIONS,
        frameskip: int = 4,
        reward: Callable[[backspin.GameBoy], float] | None = None,
        terminated: Callable[[backspin.GameBoy], bool] | None = None,
        max_steps: int | None = None,
        start_state: bytes | None = None,
        render_mode: str | None = None,
    ) -> None:
        if observation not in ("screen", "ram"):
            raise ValueError(f'observation must be "screen" or "ram", not {observation!r}')
        if frameskip < 1:
            raise ValueError(f"frameskip must be at least 1, not {frameskip}")
        if not actions:
            raise ValueError("actions must name at least one button combination")
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f'render_mode must be None or "rgb_array", not {render_mode!r}')
        # Rewind is not needed: every reset is a state load.
        self.game_boy = backspin.GameBoy(rom, model=model, rewind_mib=0)
        self._start_state = start_state if start_state is not None else self.game_boy.save_state()
        self.game_boy.load_state(self._start_state)
        self._observation = observation
        self._actions = [int(a) for a in actions]
        self._frameskip = int(frameskip)
        self._reward = reward
        self._terminated = terminated
        self._max_steps = max_steps
        self._steps = 0
        self.render_mode = render_mode
        self.action_space = spaces.Discrete(len(self._actions))
        if observation == "screen":
            self.observation_space = spaces.Box(0, 255, backspin.SCREEN_SHAPE, np.uint8)
        else:
            self.observation_space = spaces.Box(0, 255, (RAM_END - RAM_START,), np.uint8)

    def _observe(self) -> np.ndarray:
        if self._observation == "screen":
            return self.game_boy.screen.copy()
        return np.frombuffer(self.game_boy.memory[RAM_START:RAM_END], dtype=np.uint8).copy()

    def _info(self) -> dict[str, Any]:
        # Only what the episode decides: step determinism (Gymnasium's checker) compares
        # info too, and the emulator's own frame count keeps going across resets.
        return {"episode_frames": self._steps * self._frameskip}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        # The emulator is deterministic: the seed only seeds the spaces' sampling.
        super().reset(seed=seed)
        state = (options or {}).get("state", self._start_state)
        self.game_boy.load_state(state)
        self._steps = 0
        return self._observe(), self._info()

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if not self.action_space.contains(action):
            raise ValueError(f"action {action!r} is not in {self.action_space}")
        draw = "last" if self._observation == "screen" or self.render_mode else "none"
        self.game_boy.run(frames=self._frameskip, buttons=self._actions[int(action)], draw=draw)
        self._steps += 1
        reward = float(self._reward(self.game_boy)) if self._reward else 0.0
        terminated = bool(self._terminated(self.game_boy)) if self._terminated else False
        truncated = self._max_steps is not None and self._steps >= self._max_steps
        return self._observe(), reward, terminated, truncated, self._info()

    def render(self) -> np.ndarray | None:
        if self.render_mode == "rgb_array":
            return self.game_boy.screen.copy()
        return None


class GameBoyVectorEnv(gymnasium.vector.VectorEnv):
    """N Game Boys as one Gymnasium vector environment, stepped together on Rust threads
    (``backspin.VectorGameBoy``) with the GIL released.

    The arguments are those of ``GameBoyEnv`` plus ``num_envs`` and ``threads``; the
    callables receive the ``VectorGameBoy`` and the env's index: ``reward(vgb, i) -> float``
    (read memory with ``vgb.peek(i, addr)`` or ``vgb.read_memory(i, start, end)``).

    Autoreset is Gymnasium's ``NEXT_STEP`` mode: the step after an env terminates or is
    truncated reloads its start state, ignores its action, and returns its first observation
    with reward 0. ``reset(options={"state": s})`` starts every env from ``s``;
    ``load_states(indices, states)`` moves chosen envs to other states ("swarming").
    Observations are copies unless ``copy=False`` (then they are the native buffer, updated
    in place by the next step).

    ``step_async(actions)`` starts a step and returns while the emulators run on their
    threads; ``step_wait()`` waits for it and returns what ``step`` returns (``step`` is the
    two in a row). Work done in between, such as computing the next actions of envs whose
    observations are already known, overlaps the emulation. As in Gymnasium's
    ``AsyncVectorEnv``: ``AlreadyPendingCallError`` for a second start or a reset while a
    step is pending, ``NoAsyncCallError`` for a wait without a start, and
    ``multiprocessing.TimeoutError`` from ``step_wait(timeout)`` (here the step goes on:
    call ``step_wait`` again).
    """

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        rom: bytes | str | os.PathLike[str],
        num_envs: int,
        *,
        model: str = "auto",
        observation: str = "screen",
        actions: Sequence[int] = DEFAULT_ACTIONS,
        frameskip: int = 4,
        reward: Callable[[backspin.VectorGameBoy, int], float] | None = None,
        terminated: Callable[[backspin.VectorGameBoy, int], bool] | None = None,
        max_steps: int | None = None,
        start_state: bytes | None = None,
        threads: int | None = None,
        copy: bool = True,
    ) -> None:
        if frameskip < 1:
            raise ValueError(f"frameskip must be at least 1, not {frameskip}")
        if not actions:
            raise ValueError("actions must name at least one button combination")
        self.game_boys = backspin.VectorGameBoy(
            rom, num_envs, model=model, threads=threads, observation=observation
        )
        self.num_envs = self.game_boys.num_envs
        self._start_state = (
            start_state if start_state is not None else self.game_boys.save_states([0])[0]
        )
        self._buttons = np.array([int(a) for a in actions], dtype=np.uint8)
        self._frameskip = int(frameskip)
        self._reward = reward
        self._terminated = terminated
        self._max_steps = max_steps
        self._copy = copy
        self._steps = np.zeros(self.num_envs, dtype=np.int64)
        self._autoreset = np.zeros(self.num_envs, dtype=bool)
        self._pending = False
        self.render_mode = None
        self.single_action_space = spaces.Discrete(len(self._buttons))
        shape = backspin.SCREEN_SHAPE if observation == "screen" else (RAM_END - RAM_START,)
        self.single_observation_space = spaces.Box(0, 255, shape, np.uint8)
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs
        )
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )

    def _observations(self) -> np.ndarray:
        obs = self.game_boys.observations
        return obs.copy() if self._copy else obs

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        self._refuse_if_pending("reset")
        # The emulators are deterministic: the seed only seeds the spaces' sampling.
        if isinstance(seed, int):
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(seed)
            self.action_space.seed(seed)
        state = (options or {}).get("state", self._start_state)
        self.game_boys.load_states(list(range(self.num_envs)), state)
        self._steps[:] = 0
        self._autoreset[:] = False
        return self._observations(), {}

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        self.step_async(actions)
        return self.step_wait()

    def step_async(self, actions: np.ndarray) -> None:
        """Starts a step with ``actions`` (one per env) and returns at once."""
        self._refuse_if_pending("step_async")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not self.action_space.contains(
            actions.astype(np.int64)
        ):
            raise ValueError(f"actions {actions!r} are not in {self.action_space}")
        self.game_boys.step_async(self._buttons[actions], frames=self._frameskip)
        self._pending = True

    def step_wait(
        self, timeout: float | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Waits for the step ``step_async`` started (at most ``timeout`` seconds) and
        returns ``(observations, rewards, terminations, truncations, infos)``."""
        if not self._pending:
            raise gymnasium.error.NoAsyncCallError(
                "Calling `step_wait` without any prior call to `step_async`.", "step"
            )
        try:
            self.game_boys.step_wait(timeout)
        except TimeoutError as error:
            raise multiprocessing.TimeoutError(
                f"the step is still running after {timeout} s: call step_wait again"
            ) from error
        self._pending = False
        self._steps += 1
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terminations = np.zeros(self.num_envs, dtype=bool)
        for i in range(self.num_envs):
            if self._reward:
                rewards[i] = float(self._reward(self.game_boys, i))
            if self._terminated:
                terminations[i] = bool(self._terminated(self.game_boys, i))
        if self._max_steps is None:
            truncations = np.zeros(self.num_envs, dtype=bool)
        else:
            truncations = self._steps >= self._max_steps
        # NEXT_STEP autoreset: envs that ended on the previous step start over now (their
        # emulation this step is discarded by the reload).
        restarted = np.flatnonzero(self._autoreset)
        if restarted.size:
            self.game_boys.load_states(restarted.tolist(), self._start_state)
            self._steps[restarted] = 0
            rewards[restarted] = 0.0
            terminations[restarted] = False
            truncations[restarted] = False
        self._autoreset = terminations | truncations
        return self._observations(), rewards, terminations, truncations, {}

    def _refuse_if_pending(self, call: str) -> None:
        if self._pending:
            raise gymnasium.error.AlreadyPendingCallError(
                f"Calling `{call}` while waiting for a pending call to `step` to complete.",
                "step",
            )

    def load_states(self, indices: Sequence[int], states: bytes | Sequence[bytes]) -> None:
        """Moves the envs at ``indices`` to ``states`` (one each, or one for all); their
        episodes go on from there (step counts are kept)."""
        self._refuse_if_pending("load_states")
        self.game_boys.load_states(list(indices), states)

    def save_states(self, indices: Sequence[int] | None = None) -> list[bytes]:
        """Save states of the envs at ``indices`` (default: all)."""
        self._refuse_if_pending("save_states")
        return self.game_boys.save_states(None if indices is None else list(indices))
