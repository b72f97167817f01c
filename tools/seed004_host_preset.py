"""Runs one file of scenarios/seed004/ with a stream count, optionally with seed 004's host
preset on every host node (``nodes[].host = { preset = "seed004" }``) and TCP options, and prints
one JSON line: frame loss across streams, received-interval shares, cells dropped, the hosts'
CPU use, host drops and keep-up flags, and over TCP the largest application backlog. Used for
docs/video.md's "Open finding" table:

    .venv/bin/python tools/seed004_host_preset.py exp2-fore-4to1-n24 --streams 24 --preset
    .venv/bin/python tools/seed004_host_preset.py exp4-fore-4to1-n20 --streams 20 --preset \\
        --duration 60 [--send-buffer 65535] [--no-delayed-ack]
"""

from __future__ import annotations

import argparse
import json
import statistics as st
import tomllib

import atmsim
from atmsim.reproduce import scenarios_dir
from atmsim.reproduce.seed004 import _connections, _first_source


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name", help="a file of scenarios/seed004/ without .toml")
    ap.add_argument("--streams", type=int, required=True)
    ap.add_argument("--duration", type=float, default=220.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--preset", action="store_true", help='nodes[].host = { preset = "seed004" } on every host')
    ap.add_argument("--receiver", action="store_true",
                    help='the preset on the receiving hosts (r*) only, the senders ideal')
    ap.add_argument("--shared-socket", action="store_true", help='host receive_socket = "shared"')
    ap.add_argument("--adapter-buffer", type=int, help="host adapter_receive_buffer_bytes")
    ap.add_argument("--cost-scale", type=float,
                    help="a sensitivity, not a reading: the preset's receive costs (per packet, per byte, per "
                         "system call) times this")
    ap.add_argument("--send-buffer", type=int, help="host send_buffer_bytes over the preset's")
    ap.add_argument("--no-delayed-ack", action="store_true", help="TCP streams: delayed_ack = false")
    a = ap.parse_args()
    rel = f"seed004/{a.name}.toml"
    path = scenarios_dir() / rel
    with path.open("rb") as f:
        doc = tomllib.load(f)
    host: dict[str, object] = {"preset": "seed004"} if a.preset or a.receiver else {}
    if a.send_buffer:
        host["send_buffer_bytes"] = a.send_buffer
    if a.shared_socket:
        host["receive_socket"] = "shared"
    if a.cost_scale:
        host.update(per_packet_recv_us=60.0 * a.cost_scale, per_byte_recv_ns=15.0 * a.cost_scale,
                    per_tsdu_us=20.0 * a.cost_scale)
    if a.adapter_buffer:
        host["adapter_receive_buffer_bytes"] = a.adapter_buffer
    modelled = (lambda n: n["name"].startswith("r")) if a.receiver else (lambda n: True)
    nodes = [dict(n, host=host) if n["kind"] == "host" and host and modelled(n) else n for n in doc["nodes"]]
    senders = int(a.name.split("-")[-2][0])
    receivers = 4 if "4to4" in a.name else 1
    src = _first_source(rel)
    if a.no_delayed_ack and "tcp" in src:
        src = {**src, "tcp": {**src["tcp"], "delayed_ack": False}}
    rate = src["video"]["frame_rate"]
    r = atmsim.run(str(path), seed=a.seed, duration=a.duration,
                   overrides={"nodes": nodes, "connections": _connections(senders, receivers, a.streams, rate, src)})
    s = r.summary
    vs = [c["video"] for c in s["connections"].values() if "video" in c]
    loss = [v["frame_loss_pct"] for v in vs if v["frame_loss_pct"] is not None]  # None: nothing sent
    h = [sum(v["interval_hist"][k] for v in vs) for k in range(4)]
    out = {
        "run": a.name, "streams": a.streams, "duration_s": a.duration, "seed": a.seed, "host": host or "ideal",
        "loss_avg_pct": round(st.mean(loss), 3), "loss_max_pct": round(max(loss), 3),
        "intervals_pct_0_2_4_6": [round(100 * x / max(1, sum(h)), 2) for x in h],
        "cells_dropped": sum(c["cells_dropped"] for c in s["connections"].values()),
        "hosts": {k: {"cpu": round(v["cpu_utilization"], 3), "drops": v["drops"],
                      "sender_overloaded": v["sender_overloaded"]} for k, v in s.get("hosts", {}).items()},
    }
    backlog = [v["send_backlog_max_bytes"] for v in vs if v.get("send_backlog_max_bytes") is not None]
    if backlog:
        out["send_backlog_max_bytes"] = max(backlog)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
