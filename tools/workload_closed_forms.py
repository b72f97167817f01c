"""Workload runs beside their closed forms (docs/workloads.md, "Tests"): request-response time under
slow start in round trips, and a window-limited bulk transfer. Prints one line per case; the
assertions live in crates/atmsim-core/src/sim/workload_tests.rs.

Usage: .venv/bin/python tools/workload_closed_forms.py
"""
import math

import atmsim

def net(script, mbps, delay_ms, mss, window, **w):
    return {"description": "check", "run": {"duration_s": 400.0, "seed": 3},
        "nodes": [{"name": "A", "kind": "host"}, {"name": "B", "kind": "host"}, {"name": "S", "kind": "switch", "fabric_delay_us": 0.0}],
        "links": [{"a": "A", "b": "S", "rate_mbps": mbps, "delay_us": delay_ms * 1e3}, {"a": "S", "b": "B", "rate_mbps": mbps, "delay_us": delay_ms * 1e3}],
        "connections": [{"name": "w", "route": ["A", "S", "B"], "category": "ubr",
            "source": {"kind": "workload", "workload": {"script": script, **w},
                       "tcp": {"mss_bytes": mss, "window_bytes": window, "mtu_bytes": 9180, "recovery": "reno", "delayed_ack": False}}}]}
for n in range(1, 8):
    r = atmsim.run(net(f"1 rr {n*8192},1024*3;", 1000.0, 25.0, 8192, 65535, idle_restart="always"))
    t = r.workload("w")["statements"][0]["members"][0]["runs"][0]["transaction_ms"]
    print(f"rr n={n} segments: transaction {t['mean']:.3f} ms (closed form {math.ceil(math.log2(n+1))*100} ms)")
r = atmsim.run(net("1 bulk_get 8192*400;", 1000.0, 25.0, 8192, 4*8192))
run = r.workload("w")["statements"][0]["members"][0]["runs"][0]
print(f"window-limited bulk_get: {run['end_s']-run['start_s']:.4f} s (closed form {(2+math.ceil(397/4)-0.5)*0.1:.4f} s), {run['throughput_kBps']:.2f} kB/s vs window/RTT {4*8192/0.1/1e3:.2f}")
