"""Reproduction benchmark (``make bench``, issue 27): the wall time and peak memory of
``atmsim reproduce seed000`` (all 56 runs, on one local process per core), from a fresh output
directory.

The command runs as a child process; every 0.25 s this reads the resident memory (``VmRSS`` of
``/proc/PID/status``) of the child and all its descendants (the study's worker processes) and
keeps the largest sum (``peak_tree_rss_bytes``: the goal's figure, what the machine must hold at
once); ``peak_process_rss_bytes`` is the largest ``ru_maxrss`` of one process of the tree (the
child's own and, from ``RUSAGE_CHILDREN``, the largest of the processes it waited for), what
``/usr/bin/time -v`` shows. The machine's load average at the start and the end is recorded (the
wall time depends on what else runs). Merged into ``target/bench.json`` under ``reproduce``.

    .venv/bin/python tools/bench_reproduce.py [--experiment seed000] [--quick] [--jobs N] [--no-write]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _children() -> dict[int, list[int]]:
    """{parent pid: [child pids]} of every process now (from /proc/PID/stat)."""
    out: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # the command name is in parentheses and may hold spaces: the fields after its ')'
        fields = stat[stat.rfind(b")") + 2:].split()
        out.setdefault(int(fields[1]), []).append(int(d))
    return out


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def tree_rss_bytes(root: int) -> int:
    """Resident memory of ``root`` and all its descendants now."""
    children = _children()
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += _rss_bytes(pid)
        stack.extend(children.get(pid, ()))
    return total


def measure(cmd: list[str], poll_s: float = 0.25) -> dict[str, float]:
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        peak = max(peak, tree_rss_bytes(proc.pid))
        time.sleep(poll_s)
    wall = time.perf_counter() - t0
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"bench_reproduce: {' '.join(cmd)} failed (exit {proc.returncode}): {err.strip()[-2000:]}")
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)  # the largest process this one waited for,
    # and those that process waited for (the study's workers are the child's children)
    return {
        "wall_s": wall,
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "peak_tree_rss_bytes": peak,
        "peak_process_rss_bytes": ru.ru_maxrss * 1024,
        "load_avg_1min_start": load0[0],
        "load_avg_1min_end": os.getloadavg()[0],
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--experiment", default="seed000")
    ap.add_argument("--quick", action="store_true", help="the reproduction's --quick runs")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per core)")
    ap.add_argument("--no-write", action="store_true", help="do not touch target/bench.json")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "atmsim", "reproduce", a.experiment, "--out", str(Path(tmp) / "out")]
        if a.quick:
            cmd.append("--quick")
        if a.jobs is not None:
            cmd += ["--jobs", str(a.jobs)]
        print(f"reproduce benchmark: {' '.join(cmd[1:])} ({os.cpu_count()} cores)", flush=True)
        res = measure(cmd)
    res.update(experiment=a.experiment, quick=a.quick, jobs=a.jobs or os.cpu_count(), cores=os.cpu_count())
    print(f"  wall {res['wall_s']:.1f} s, CPU {res['cpu_s']:.1f} s, peak RSS of the process tree "
          f"{res['peak_tree_rss_bytes'] / 2**20:,.0f} MB (largest one process {res['peak_process_rss_bytes'] / 2**20:,.0f} MB), "
          f"load average {res['load_avg_1min_start']:.1f} -> {res['load_avg_1min_end']:.1f}")
    print("  goal (issue 27, full seed000 on 2 cores): <= 300 s, <= 1 GB")
    if not a.no_write:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_seed004 import merge_bench_json

        merge_bench_json(res, key="reproduce" + ("_quick" if a.quick else ""))
        print("wrote the reproduce key of target/bench.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
