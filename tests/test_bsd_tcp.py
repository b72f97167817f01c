"""A window of one segment on seed 001's WAN (issue 26: "workload TCP at window = MSS = 4 KB"):
each round trip carries one 4,096 B segment, so the workload's throughput is W / cycle, the
cycle being the propagation round trip plus everything one segment and its ACK take on the way,
each a closed form of the scenario's parameters (scenarios/seed001/wan-bulk.toml and the host
preset "seed001-wan", docs/hosts.md):
- 100 ms of propagation (2 x 10,000 km at 5 us/km);
- the segment's AAL5 frame, 4,096 + 48 B in 87 cells, at 10 Mb/s of cells on the PVC's access
  link, plus one cell time on the 40.704 Mb/s trunk and one on the far access link; the ACK's 2
  cells likewise;
- the hosts: the segment's send and receive processing (150 us + 100 ns per byte each), the
  receiver's read system call (50 us), the ACK's send and receive processing (150 us each).
The ACK is BSD's window update after the read, which frees the segment (with ack_at_read on or
off alike: one segment never reaches the two-segment rule); before issue 25 the workload's
receiver sent none and the same run gave half the rate (docs/reproduce.md, seed 001)."""

from __future__ import annotations

import math

import pytest

import atmsim

from conftest import REPO

SCEN = REPO / "scenarios" / "seed001" / "wan-bulk.toml"


def cell_s(mbps: float) -> float:
    return 53 * 8 / (mbps * 1e6)


def test_one_segment_window_moves_one_segment_per_closed_form_cycle() -> None:
    w = 4096
    r = atmsim.run(SCEN, overrides={
        "connections.pvc.source.workload.script": "1 bulk_put 9000*445;",
        "connections.pvc.source.tcp.window_bytes": w,
        "connections.pvc.source.tcp.mss_bytes": w,
        "run.duration_s": 200,
    })
    runs = [run for st in r.summary["connections"]["pvc"]["workload"]["statements"]
            for m in st["members"] for run in m["runs"]]
    assert len(runs) == 1 and runs[0]["throughput_kBps"] is not None
    cells = math.ceil((w + 48 + 8) / 48)
    assert cells == 87
    frame = cells * cell_s(10) + cell_s(40.704) + cell_s(10)
    ack = 2 * cell_s(10) + cell_s(40.704) + cell_s(10)
    hosts = 2 * (150e-6 + w * 100e-9) + 50e-6 + 2 * 150e-6
    cycle = 0.100 + frame + ack + hosts
    expected_kBps = w / cycle / 1000
    assert runs[0]["throughput_kBps"] == pytest.approx(expected_kBps, rel=0.005)
    # and that is 0.95 of window / RTT: the PVC's transmission and the hosts take the rest
    assert runs[0]["throughput_kBps"] / (w / 0.1 / 1000) == pytest.approx(0.95, abs=0.01)
