"""Memory benchmark (``make bench``): peak resident memory of ``atmsim run`` on the demo scenario
with 1 ms sampling, at several simulated durations, each run in a child process of its own.

The series stream to Parquet row groups while the run goes, so the peak should not grow with the
duration. The peaks are merged into ``target/bench.json`` under the key ``memory``. Not a timed test: speed figures from a shared machine mean nothing; memory does.

    .venv/bin/python tools/bench_memory.py [DURATION_S ...]      (default: 11 110 1000)
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "scenarios" / "examples" / "demo.toml"

CHILD = """
import resource, sys
from atmsim.cli import main
rc = main(["run", sys.argv[1], "--quiet", "--out", sys.argv[2],
           "--set", "run.duration_s=" + sys.argv[3], "--set", "run.sample_interval_s=0.001"])
peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(rc, peak_kb)
"""


def peak_rss_mb(duration_s: float, scenario: Path = DEMO) -> float:
    """Peak RSS (MB) of one run in a fresh child process."""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(scenario), str(Path(tmp) / "out"), repr(float(duration_s))],
            check=True, capture_output=True, text=True,
        ).stdout.split()
        rc, peak_kb = int(out[-2]), int(out[-1])
        if rc != 0:
            raise SystemExit(f"atmsim run failed (exit {rc}) at duration {duration_s}")
        rows = sum(
            __import__("pyarrow.parquet").parquet.ParquetFile(p).metadata.num_rows
            for p in (Path(tmp) / "out").glob("*.parquet")
        )
    print(f"  demo {duration_s:>7g} s simulated, 1 ms sampling: peak RSS {peak_kb / 1024:7.1f} MB, "
          f"{rows:,} series rows written", flush=True)
    return peak_kb / 1024


def main(argv: list[str]) -> int:
    durations = [float(a) for a in argv] or [11.0, 110.0, 1000.0]
    print("memory benchmark: peak RSS of `atmsim run scenarios/examples/demo.toml` (child processes)")
    peaks = [peak_rss_mb(d) for d in durations]
    print(f"  growth from {durations[0]:g} s to {durations[-1]:g} s: {peaks[-1] - peaks[0]:+.1f} MB")
    from bench_seed004 import merge_bench_json

    merge_bench_json({"scenario": "scenarios/examples/demo.toml", "sample_interval_s": 0.001,
                      "peak_rss_mb": dict(zip((f"{d:g}" for d in durations), peaks))}, key="memory")
    print("wrote the memory key of target/bench.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
