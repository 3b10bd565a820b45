"""Times VectorGameBoy.step on a ROM (default: the demo) for 1, 2, 8 and 64 envs on 1 and 2
threads and prints a table: frames per second (all envs together; best run and median run),
the 1 -> 2 thread scaling, fps(2 threads) / (2 x fps(1 thread)), from the best runs and as
the median over back-to-back pairs of runs, the median and 99th-percentile step time, and
how loaded the machine was by other processes meanwhile (a warning when too loaded for the
figures to be trusted). `--json` prints the same as JSON.

`--machine-baseline` also times two separate processes of one env each, alone and side by
side, right after each pair of thread runs: what the machine itself gives from a second core
at that moment (no shared memory, no step barrier), the ceiling the threads' scaling is to be
read against. On a shared virtual machine that ceiling moves from second to second: one busy
CPU sometimes runs much faster than two busy CPUs each do (measured: one process alone
44-47 K fps, two side by side 49-65 K together, a scaling of 0.53-0.74 in those seconds),
so only figures taken in the same seconds compare.
`--policy-ms X` keeps the caller busy X ms after each step, as a policy would; `--async`
steps with `step_async` + `step_wait` with that work in between (overlapped). With `--async`
the caller, once in `step_wait`, steps envs no pool thread has started, so "1 thread" then
means up to two busy threads: compare `--async` runs with `step` runs, not their scaling.
Each timed run lasts about `--seconds` (0.5) on one thread: the step count is calibrated per env
count, because a run of a few milliseconds measures the host's scheduling noise more than the
pool (measured: at 2 envs, 15 ms runs gave a median scaling of 0.66 to 0.78 on a quiet machine,
0.4 s runs 0.96). `--frames-per-env N` fixes the frames instead.
Usage: python benches/vector_speed.py [ROM] [--seconds 0.5 | --frames-per-env N] [--repeats 7]
       [--machine-baseline] [--async] [--policy-ms X] [--json]"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import backspin


def busy_seconds():
    """CPU seconds all processes have been busy since boot (Linux), or None."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(x) for x in stat.readline().split()[1:]]
    except OSError:
        return None
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def one_env_seconds(rom, steps, frameskip):
    """Seconds one env on one thread takes for `steps` steps (after power-on)."""
    vgb = backspin.VectorGameBoy(rom, 1, threads=1)
    vgb.step([backspin.RIGHT], frames=60)
    start = time.perf_counter()
    for _ in range(steps):
        vgb.step([backspin.RIGHT], frames=frameskip)
    return time.perf_counter() - start


def processes_seconds(rom, steps, frameskip, count):
    """Mean seconds of `count` processes running `one_env_seconds` at the same time."""
    command = [sys.executable, __file__, "--child", rom, str(steps), str(frameskip)]
    children = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(count)]
    return sum(float(child.communicate()[0]) for child in children) / count


def calibrated_steps(vgb, buttons, frameskip, seconds):
    """Steps of `frameskip` frames that take `vgb` about `seconds`, timed on a short run."""
    steps, elapsed = 0, 0.0
    start = time.perf_counter()
    while elapsed < 0.05 or steps < 3:
        vgb.step(buttons, frames=frameskip)
        steps += 1
        elapsed = time.perf_counter() - start
    return max(1, round(seconds * steps / elapsed))


def steps_per_run(args, vgb, buttons):
    """Steps in each timed run of `vgb`: `--frames-per-env` over the frameskip, else
    calibrated to about `--seconds`."""
    if args.frames_per_env is not None:
        return max(1, args.frames_per_env // args.frameskip)
    return calibrated_steps(vgb, buttons, args.frameskip, args.seconds)


def percentile(values, fraction):
    """The value below which `fraction` of `values` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def busy(seconds):
    """Keeps this thread busy for `seconds`, as a policy computing the next actions would."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def timed_steps(vgb, buttons, steps, frameskip, overlapped, policy_seconds):
    """Seconds `steps` steps take in all, and each step's seconds. After each step the
    caller is busy for `policy_seconds` (a stand-in for a policy). `overlapped` starts each
    step with `step_async` and ends it with `step_wait`, with the policy in between, as a
    training loop overlapping its policy with emulation would."""
    durations = []
    clock = time.perf_counter
    start = clock()
    for _ in range(steps):
        before = clock()
        if overlapped:
            vgb.step_async(buttons, frames=frameskip)
            busy(policy_seconds)
            vgb.step_wait()
        else:
            vgb.step(buttons, frames=frameskip)
            busy(policy_seconds)
        durations.append(clock() - before)
    return clock() - start, durations


def print_table(report):
    """The results as a table a person reads: frames per second (all envs together), the
    1 -> 2 thread scaling, step times, and whether the machine was quiet enough to trust."""
    others = report["other_processes_cpu_share"]
    run_length = (
        "frames per env as in the table"
        if report["seconds_per_run"] is None
        else f"about {report['seconds_per_run']} s on 1 thread"
    )
    load = report["loadavg_before"][0], report["loadavg_after"][0]
    print(
        f"rom {report['rom']}, frameskip {report['frameskip']}, "
        f"{run_length} per run, {report['repeats']} runs each "
        f"(1 and 2 threads taking turns), {report['cpus']} CPUs; stepped with "
        f"{report['step']}, caller busy {report['policy_ms']} ms per step"
    )
    print(
        f"load average {load[0]:.2f} before, {load[1]:.2f} after; other processes kept "
        f"{'?' if others is None else f'{others:.0%}'} of all CPUs busy"
    )
    if (others is not None and others > 0.05) or max(load) > 1.5:
        print(
            "WARNING: the machine was busy with other work: scaling figures are unreliable "
            "(a quiet machine shows load average < 1.5 and other processes < 5 %; with the "
            "kernel's autogroups, CPU time is shared out per session, so while another "
            "session keeps the CPUs busy a second thread gains this process nothing)"
        )
    print()
    print("scaling = fps(2 threads) / (2 x fps(1 thread)); best = best run of each,")
    print("median = median over back-to-back (1 thread, 2 threads) pairs of runs")
    print()
    header = (
        "| envs | frames per env a run | 1 thread fps best / median | 2 threads fps best / median "
        "| scaling best | scaling median | two processes' scaling median "
        "| step p50 / p99 ms, 1 thread | 2 threads |"
    )
    print(header)
    print("|---" * (header.count("|") - 1) + "|")
    for name, row in report["results"].items():
        if name == "two_processes":
            continue

        def fps(threads):
            if f"threads_{threads}_fps" not in row:
                return "-"
            return f"{row[f'threads_{threads}_fps']:,} / {row[f'threads_{threads}_fps_median']:,}"

        def steps(threads):
            if f"threads_{threads}_step_ms_p50" not in row:
                return "-"
            p50 = row[f"threads_{threads}_step_ms_p50"]
            p99 = row[f"threads_{threads}_step_ms_p99"]
            return f"{p50:.2f} / {p99:.2f}"

        print(
            f"| {name.removeprefix('envs_')} | {row['frames_per_env']:,} | {fps(1)} | {fps(2)} "
            f"| {row.get('scaling_1_to_2', '-')} | {row.get('scaling_1_to_2_paired_median', '-')} "
            f"| {row.get('two_processes_scaling_paired_median', '-')} | {steps(1)} | {steps(2)} |"
        )
    baseline = report["results"].get("two_processes")
    if baseline:
        print(
            f"| two processes of 1 env, all repeats | - | {baseline['alone_fps']:,} alone "
            f"| {baseline['side_by_side_fps_each']:,} each side by side "
            f"| {baseline['scaling_1_to_2']} | {baseline['scaling_1_to_2_paired_median']} "
            "| - | - | - |"
        )
        print(
            "(two processes: the machine's own scaling, with no shared memory or barrier, "
            "timed right after each pair of thread runs)"
        )
        relative = [
            f"{name.removeprefix('envs_')} envs "
            f"{row['scaling_1_to_2_paired_median'] / row['two_processes_scaling_paired_median']:.2f}"
            for name, row in report["results"].items()
            if "scaling_1_to_2_paired_median" in row and "two_processes_scaling_paired_median" in row
        ]
        if relative:
            print("median scaling relative to the two processes' in the same repeats: "
                  + ", ".join(relative))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        print(one_env_seconds(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("rom", nargs="?")
    parser.add_argument(
        "--seconds", type=float, default=0.5,
        help="about how long each timed run takes on one thread (the step count is calibrated)",
    )
    parser.add_argument(
        "--frames-per-env", type=int, default=None,
        help="frames each env runs per timed run (instead of --seconds)",
    )
    parser.add_argument("--frameskip", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--envs", type=int, nargs="+", default=[1, 2, 8, 64])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--machine-baseline", action="store_true")
    parser.add_argument(
        "--async", dest="overlapped", action="store_true",
        help="step with step_async + step_wait instead of step",
    )
    parser.add_argument(
        "--policy-ms", type=float, default=0.0,
        help="milliseconds the caller is busy after each step (in between with --async)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    args = parser.parse_args()
    rom = args.rom or backspin.demo_rom()
    if args.machine_baseline and args.rom is None:
        rom = os.path.join(tempfile.gettempdir(), "backspin-vector-speed-demo.gb")
        with open(rom, "wb") as out:
            out.write(backspin.demo_rom())
    if args.frames_per_env is not None and args.frames_per_env < 1:
        parser.error("--frames-per-env must be at least 1")
    if not 0 < args.seconds <= 60:
        parser.error("--seconds must be above 0 and at most 60")
    load_before = os.getloadavg()
    busy_before, own_before, wall_before = busy_seconds(), os.times(), time.perf_counter()
    results = {}
    process_steps = None
    if args.machine_baseline:
        process_steps = steps_per_run(
            args, backspin.VectorGameBoy(rom, 1, threads=1), [backspin.RIGHT]
        )
    process_runs = {"alone": [], "together": [], "pairs": []}
    for n in args.envs:
        buttons = [backspin.RIGHT] * n
        vgbs = {}
        for threads in args.threads:
            vgbs[threads] = backspin.VectorGameBoy(rom, n, threads=threads)
            vgbs[threads].step(buttons, frames=60)  # past power-on
        steps = steps_per_run(args, vgbs[min(vgbs)], buttons)
        # The thread counts take turns, so a burst of load from elsewhere hits one repeat
        # of each rather than all repeats of one.
        seconds = {threads: [] for threads in vgbs}
        durations = {threads: [] for threads in vgbs}
        pairs = []  # per repeat: fps on 2 threads / (2 x fps on 1 thread)
        process_pairs = []  # per repeat: the same for two processes, timed right after
        for repeat in range(args.repeats):
            # Which goes first alternates, so a slow spell is shared out evenly.
            order = list(vgbs.items()) if repeat % 2 == 0 else list(vgbs.items())[::-1]
            this_repeat = {}
            for threads, vgb in order:
                total, each = timed_steps(
                    vgb, buttons, steps, args.frameskip, args.overlapped, args.policy_ms / 1e3
                )
                this_repeat[threads] = total
                seconds[threads].append(total)
                durations[threads].extend(each)
            if 1 in this_repeat and 2 in this_repeat:
                pairs.append(this_repeat[1] / this_repeat[2] / 2)
            if process_steps is not None:
                # Right after the threads, so that both see nearly the same machine: its
                # speed with one busy CPU and with two drifts from second to second.
                alone = processes_seconds(rom, process_steps, args.frameskip, 1)
                together = processes_seconds(rom, process_steps, args.frameskip, 2)
                process_pairs.append(alone / together)
                process_runs["pairs"].append(alone / together)
                process_runs["alone"].append(alone)
                process_runs["together"].append(together)
        frames = n * steps * args.frameskip
        row = {"frames_per_env": steps * args.frameskip}
        for threads in vgbs:
            row[f"threads_{threads}_fps"] = round(frames / min(seconds[threads]))
            row[f"threads_{threads}_fps_median"] = round(frames / statistics.median(seconds[threads]))
            row[f"threads_{threads}_step_ms_p50"] = round(1e3 * percentile(durations[threads], 0.5), 3)
            row[f"threads_{threads}_step_ms_p99"] = round(1e3 * percentile(durations[threads], 0.99), 3)
        # One env runs on one thread whatever is asked (threads are capped at the env count).
        if n > 1 and "threads_1_fps" in row and "threads_2_fps" in row:
            row["scaling_1_to_2"] = round(row["threads_2_fps"] / row["threads_1_fps"] / 2, 3)
            # The median of back-to-back pairs: on a host whose speed drifts (a shared
            # virtual machine), each pair sees nearly the same machine.
            row["scaling_1_to_2_paired_median"] = round(statistics.median(pairs), 3)
        if process_pairs:
            row["two_processes_scaling_paired_median"] = round(statistics.median(process_pairs), 3)
        results[f"envs_{n}"] = row
    if process_runs["pairs"]:
        # Over every env count's repeats: the machine's own scaling while this ran.
        results["two_processes"] = {
            "alone_fps": round(process_steps * args.frameskip / min(process_runs["alone"])),
            "side_by_side_fps_each": round(
                process_steps * args.frameskip / min(process_runs["together"])
            ),
            "scaling_1_to_2": round(min(process_runs["alone"]) / min(process_runs["together"]), 3),
            "scaling_1_to_2_paired_median": round(statistics.median(process_runs["pairs"]), 3),
        }
    # How loaded the machine was by everything else while this ran: the share of all
    # cores busy outside this process.
    own = sum(os.times()[:4]) - sum(own_before[:4])
    wall = time.perf_counter() - wall_before
    busy_after = busy_seconds()
    others = None
    if busy_before is not None and busy_after is not None:
        others = round(max(0.0, busy_after - busy_before - own) / (wall * os.cpu_count()), 3)
    report = {
        "rom": "demo" if args.rom is None else args.rom,
        "frameskip": args.frameskip,
        "seconds_per_run": None if args.frames_per_env is not None else args.seconds,
        "repeats": args.repeats,
        "step": "step_async + step_wait" if args.overlapped else "step",
        "policy_ms": args.policy_ms,
        "cpus": os.cpu_count(),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "other_processes_cpu_share": others,
        "results": results,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)


if __name__ == "__main__":
    main()
