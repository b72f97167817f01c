"""Hosts above ABR VCs (issue 32): a workload script over TCP and an XTPX connection run over
ABR exactly as over UBR, the ABR source beneath them pacing their AAL5 frames at its ACR
(`host/abr_end.rs`). Their throughput is checked against the closed form min(demand, max-min
fair share) of `scenarios/examples/abr-hosts.toml`: the shares come from the project's
water-filling oracle over the ERICA target capacity (0.9 x 155.52 Mb/s of cells), each
connection's demand in cells from its own parameters (the XTPX rate control's packets of 2,500 B
per 1 ms, AAL5 framing, one RM cell in Nrm = 32), and goodput = cells x the data share of the
cells (AAL5 and header efficiency of a full segment, (Nrm - 1) / Nrm)."""

from __future__ import annotations

import math

import pytest

import atmsim
from atmsim.errors import ScenarioError
from atmsim.reproduce.maxmin import max_min_fair

from conftest import REPO

SCEN = REPO / "scenarios" / "examples" / "abr-hosts.toml"
CELL_BITS = 53 * 8
NRM = 32
RM_SHARE = (NRM - 1) / NRM  # data cells among an ABR source's cells


def aal5_cells(sdu: int) -> int:
    return math.ceil((sdu + 8) / 48)


def test_hosts_over_abr_get_min_of_demand_and_fair_share() -> None:
    r = atmsim.run(SCEN)
    s = r.summary
    window = s["sim_time_s"] - s["warmup_s"]
    c = s["connections"]
    # demands in cell rate (Mb/s of cells, RM cells included), from the parameters
    xtpx_sdu = 2500 + 32  # payload + XTPX header (transport/xtpx: XTP_HEADER_BYTES)
    xtpx_demand = 1000 * aal5_cells(xtpx_sdu) / RM_SHARE * CELL_BITS / 1e6
    share = max_min_fair(
        {"A->B": 0.9 * 155.52},
        {"workload": ["A->B"], "xtpx": ["A->B"], "greedy": ["A->B"]},
        {"xtpx": xtpx_demand},
    )
    assert share["xtpx"] == pytest.approx(xtpx_demand)  # below an equal share: its demand
    # XTPX: its goodput is its demand, 20 Mb/s of payload
    x = c["xtpx"]["xtpx"]
    assert x["goodput_mbps"] == pytest.approx(2500 * 8 * 1000 / 1e6, rel=0.02)
    # the workload's bulk transfer: its fair share of cells, times the data share of its cells
    mss, hdr = 9148, 40
    data_share = mss / (aal5_cells(mss + hdr) * 53) * RM_SHARE
    goodput = c["workload"]["frames_delivered"] * mss * 8 / window / 1e6
    expected = share["workload"] * data_share
    assert goodput == pytest.approx(expected, rel=0.02), (goodput, expected)
    # the persistent source beside them gets the same share of cells
    greedy = c["greedy"]["cells_sent"] * CELL_BITS / window / 1e6
    assert greedy == pytest.approx(share["greedy"], rel=0.02)
    # the workload really ran its script over ABR: bytes delivered, frames conserve
    w = c["workload"]
    assert w["workload"]["statements"][0]["members"][0]["runs"][0]["bytes"] > 0
    assert w["cells_sent"] == w["cells_delivered"] + w["cells_dropped"] + w["cells_in_flight"]


def test_hosts_over_abr_are_deterministic() -> None:
    a = atmsim.run(SCEN, overrides={"run.duration_s": 0.6}).summary["connections"]
    b = atmsim.run(SCEN, overrides={"run.duration_s": 0.6}).summary["connections"]
    assert a == b


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ({"connections.xtpx.source.bundle": 2}, "connections[1].source.bundle"),
        ({"connections.workload.bidirectional": True}, "connections[0].bidirectional"),
        ({"nodes.h2.host": {"preset": "seed004"}}, "nodes[1].host"),
    ],
)
def test_what_hosts_over_abr_refuse(override: dict, key: str) -> None:
    with pytest.raises(ScenarioError) as e:
        atmsim.run(SCEN, overrides=override)
    assert key in str(e.value)
