"""Frame loss across the streams of seed 004 scenarios: mean, min, max and standard deviation of
the per-stream frame-loss percentage, the share of received intervals of 2 or more frame
intervals, and the cells dropped. Run:
``.venv/bin/python tools/seed004_summary.py 30 scenarios/seed004/*.toml`` (30: seconds simulated).
"""

from __future__ import annotations

import statistics as st
import sys

import atmsim


def main() -> None:
    duration = float(sys.argv[1])
    for f in sys.argv[2:]:
        r = atmsim.run(f, overrides=[f"run.duration_s={duration}"])
        v = [c["video"] for c in r.summary["connections"].values() if "video" in c]
        loss = [x["frame_loss_pct"] for x in v if x["frame_loss_pct"] is not None]  # None: nothing sent
        hist = [sum(x["interval_hist"][i] for x in v) for i in range(4)]
        n = max(sum(hist), 1)
        drops = sum(p["cells_dropped"] for p in r.summary["ports"].values())
        print(f"{f}: {len(v)} streams, frame loss % mean {st.mean(loss):.2f} min {min(loss):.2f} "
              f"max {max(loss):.2f} sd {st.pstdev(loss):.2f}; intervals >= 2: {100 * (n - hist[0]) / n:.1f}%; "
              f"cells dropped {drops}")


if __name__ == "__main__":
    main()
