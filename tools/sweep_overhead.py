"""Per-run overhead of a sweep (issue 17), in CPU time (robust on a shared machine, unlike wall
time): N replications of a scenario with `atmsim sweep -j JOBS`, against the same N runs made in
one process with `run_document` alone ("bare") and with `Result.write` ("as atmsim run writes").

    .venv/bin/python tools/sweep_overhead.py [N=1000] [SCENARIO=scenarios/examples/demo.toml] [JOBS=2]

Prints CPU ms per run of each and the overheads; the sweep's CPU is that of the `atmsim sweep`
process and its worker processes (getrusage of waited-for children)."""

from __future__ import annotations

import copy
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    scenario = sys.argv[2] if len(sys.argv) > 2 else str(REPO / "scenarios" / "examples" / "demo.toml")
    jobs = sys.argv[3] if len(sys.argv) > 3 else "2"
    from atmsim.api import prepare, run_document
    from atmsim.study import derive_seed

    with tempfile.TemporaryDirectory() as d:
        c0 = cpu(resource.RUSAGE_CHILDREN)
        subprocess.run([str(Path(sys.executable).parent / "atmsim"), "sweep", scenario, "-r", str(n), "-j", jobs, "-q",
                        "--out", f"{d}/sweep"], check=True, stdout=subprocess.DEVNULL)
        sweep = (cpu(resource.RUSAGE_CHILDREN) - c0) / n
        doc, prov = prepare(scenario)
        times = {}
        for write in (False, True):
            c0 = cpu(resource.RUSAGE_SELF)
            for i in range(n):
                dd = copy.deepcopy(doc)
                dd["run"]["seed"] = derive_seed(1, i)
                r = run_document(dd, prov)
                if write:
                    r.write(f"{d}/single/{i}")
            times[write] = (cpu(resource.RUSAGE_SELF) - c0) / n
    bare, written = times[False], times[True]
    print(f"{n} runs of {scenario}, CPU ms per run: bare {bare * 1e3:.1f}, run + Result.write {written * 1e3:.1f}, "
          f"sweep -j {jobs} {sweep * 1e3:.1f}")
    print(f"sweep machinery (scheduling, row, store, start-up) {(sweep - written) * 1e3:.1f} ms per run; "
          f"with writing the series {(sweep - bare) * 1e3:.1f} ms per run")
    print(f"as a share of this scenario's run: {(sweep - written) / bare:.1%} / {(sweep - bare) / bare:.1%}; "
          f"of a 1 s run: {(sweep - written):.2%} / {(sweep - bare):.2%}")


if __name__ == "__main__":
    main()
