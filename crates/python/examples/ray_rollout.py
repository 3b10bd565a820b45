"""Backspin envs as Ray actors: each actor steps a ``VectorGameBoy`` with actions drawn from
its own seed and returns a digest of every observation. The same script runs on a laptop
(``ray.init()`` starts a local cluster) or on a Ray cluster (``ray.init(address="auto")``).

    python crates/python/examples/ray_rollout.py [--workers 2] [--envs 4] [--steps 1250]

The emulator is deterministic, so a rollout repeated anywhere with the same seed gives the
same digests: ``--check`` reruns every seed in this process and compares.
"""

from __future__ import annotations

import argparse
import hashlib

import numpy as np

import backspin
from backspin.gym import DEFAULT_ACTIONS


def rollout(seed: int, num_envs: int, steps: int, frameskip: int = 1) -> list[str]:
    """Steps `num_envs` demo-cartridge envs `steps` times with random button combinations
    from `seed`; returns the SHA-256 of the observation batch after every step."""
    rng = np.random.default_rng(seed)
    buttons = np.array(DEFAULT_ACTIONS, dtype=np.uint8)
    vgb = backspin.VectorGameBoy(backspin.demo_rom(), num_envs, threads=1)
    digests = []
    for _ in range(steps):
        vgb.step(buttons[rng.integers(0, len(buttons), num_envs)], frames=frameskip)
        digests.append(hashlib.sha256(vgb.observations.tobytes()).hexdigest())
    return digests


def ray_rollouts(seeds: list[int], num_envs: int, steps: int) -> list[list[str]]:
    """Runs one `rollout` per seed, each in its own Ray actor, and gathers the digests."""
    import ray

    @ray.remote(num_cpus=1)
    class RolloutWorker:
        def run(self, seed: int) -> list[str]:
            return rollout(seed, num_envs, steps)

    workers = [RolloutWorker.remote() for _ in seeds]
    return ray.get([w.run.remote(seed) for w, seed in zip(workers, seeds)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--envs", type=int, default=4, help="envs per worker")
    parser.add_argument("--steps", type=int, default=1250, help="vector steps per worker")
    parser.add_argument("--check", action="store_true", help="compare with a local run")
    args = parser.parse_args()

    import ray

    ray.init()
    seeds = list(range(args.workers))
    results = ray_rollouts(seeds, args.envs, args.steps)
    total = sum(len(r) for r in results) * args.envs
    print(f"collected {total} env steps from {args.workers} Ray actors")
    if args.check:
        same = all(rollout(s, args.envs, args.steps) == r for s, r in zip(seeds, results))
        print("identical to the local run" if same else "DIFFERENT from the local run")
        raise SystemExit(0 if same else 1)


if __name__ == "__main__":
    main()
