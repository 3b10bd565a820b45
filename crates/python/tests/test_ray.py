"""Backspin envs as Ray actors (2 workers on a local Ray) give exactly the observations of a
local run with the same seeds and actions: >= 10,000 env steps compared by digest."""

import importlib.util
import pathlib

import pytest

EXAMPLE = pathlib.Path(__file__).parent.parent / "examples" / "ray_rollout.py"


def load_example():
    spec = importlib.util.spec_from_file_location("ray_rollout", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_ray_actors_match_a_local_run():
    try:
        import ray
    except ImportError:
        print("SKIP: ray is not installed (pip install ray)")
        pytest.skip("ray is not installed (pip install ray)")
    example = load_example()
    workers, envs, steps = 2, 4, 1250
    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        results = example.ray_rollouts(list(range(workers)), envs, steps)
    finally:
        ray.shutdown()
    assert sum(len(r) for r in results) * envs >= 10_000
    for seed, digests in enumerate(results):
        assert digests == example.rollout(seed, envs, steps), f"worker {seed} differs"
    assert results[0] != results[1], "different seeds drive different games"
