"""Seed 001 Figure 12 (WAN bulk_put of 9,000-byte TSDUs, scenarios/seed001/wan-bulk.toml) at TCP
windows of 4, 8 and 16 KB: the first run's throughput (bytes over its time; its end or 120 s),
beside W/RTT. The figure the window update on read (issue 25) changed: 20.48 -> 38.86 kB/s at
4 KB. Run: .venv/bin/python tools/window_update_fig12.py"""

from __future__ import annotations

import atmsim

MSS = 9148  # MTU 9188 - 40 (the scenario's TCP)

for w in (4096, 8192, 16384):
    ov = ['connections.pvc.source.workload.script="1 bulk_put 9000*300;"',
          f"connections.pvc.source.tcp.window_bytes={w}", "run.duration_s=120"]
    if w < MSS:
        # a window below one segment: the segment is the window (as seed001.py's runs do)
        ov.append(f"connections.pvc.source.tcp.mss_bytes={w}")
    r = atmsim.run("scenarios/seed001/wan-bulk.toml", overrides=ov)
    run = r.summary["connections"]["pvc"]["workload"]["statements"][0]["members"][0]["runs"][0]
    t = (run["end_s"] or 120.0) - run["start_s"]
    print(f"window {w:6d} B: {run['bytes'] / t / 1e3:7.2f} kB/s  (W/RTT {w / 0.1 / 1e3:.2f} kB/s)")
