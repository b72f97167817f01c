"""ABR additions on the Python surface: summary fields, the abr_sources / abr_ports series,
writing and reading every series, plots and the CLI table."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import atmsim
from atmsim.cli import format_summary, main
from atmsim.plots import plot_all

from conftest import REPO, abr_scenario, minimal_scenario


def test_abr_summary_and_series(tmp_path: Path) -> None:
    r = atmsim.run(abr_scenario(0.05), overrides={"connections.c1.abr.nrm": 8})
    c1 = r.summary["connections"]["c1"]
    for key in ("acr_final_mbps", "acr_mean_mbps", "rm_cells_sent", "rm_overhead"):
        assert key in c1, key
    assert c1["rm_overhead"] == pytest.approx(1 / 8, rel=0.02)
    port = r.summary["ports"]["S->h2"]
    for key in ("z_mean", "fairshare_mbps", "abr_capacity_mbps"):
        assert key in port, key
    assert {"abr_sources", "abr_ports", "ports", "connections"} <= set(r.series_names)
    assert {"time_s", "connection", "acr_mbps"} <= set(r.series("abr_sources").columns)
    assert {"time_s", "port", "z", "fairshare_mbps", "abr_capacity_mbps", "input_mbps", "target_mbps"} <= set(
        r.series("abr_ports").columns
    )
    # every series is written and read back
    out = r.write(tmp_path / "out")
    assert sorted(p.stem for p in out.glob("*.parquet")) == sorted(r.series_names)
    back = atmsim.Result.read(out)
    assert back.series_names == r.series_names
    assert len(back.series("abr_sources")) == len(r.series("abr_sources"))
    # plots: the ABR ones appear
    names = sorted(p.name for p in plot_all(back, tmp_path / "plots"))
    assert names == ["abr_ports.png", "acr.png", "queues.png", "throughput.png", "utilization.png"]
    # the table gains the ABR columns
    from atmsim.tables import headers_of

    heads = headers_of(format_summary(r.summary))  # headers wrap to fit 100 columns
    for col in ("ACR final", "ACR mean", "RM overhead", "z mean", "fair share Mb/s"):
        assert col in heads


def test_non_abr_result_has_no_abr_columns_or_plots(tmp_path: Path) -> None:
    r = atmsim.run(minimal_scenario())
    text = format_summary(r.summary)
    assert "ACR" not in text and "z mean" not in text
    names = sorted(p.name for p in plot_all(r, tmp_path))
    assert "acr.png" not in names and "abr_ports.png" not in names


def test_plot_command_on_abr_example(tmp_path: Path, capsys) -> None:
    out = tmp_path / "n"
    scen = REPO / "scenarios" / "examples" / "abr-n-sources.toml"
    assert main(["run", str(scen), "--out", str(out), "--quiet", "--duration", "0.1", "--set", "run.warmup_s=0.05"]) == 0
    assert main(["plot", str(out)]) == 0
    printed = capsys.readouterr().out
    assert str(out / "acr.png") in printed and str(out / "abr_ports.png") in printed


TWO_WAY = REPO / "scenarios" / "examples" / "abr-two-way.toml"
TWO_WAY_S = 0.5  # run.duration_s
ONE_WAY_S = (1 + 1000 + 1) * 5e-6  # h-A, A-B, B-d at 5 us/km
LINK_MBPS = 155.52
NRM = 32  # TM 4.0 default, not set by the example
CELL_BITS = 53 * 8


def test_bidirectional_abr_example() -> None:
    # scenarios/examples/abr-two-way.toml: the forward loop settles at ERICA's target, the far end
    # turns every forward RM cell around in rate, the near end those of the reverse direction;
    # conservation holds both ways
    r = atmsim.run(TWO_WAY)
    x, rev = r.summary["connections"]["x"], r.summary["connections"]["x.reverse"]
    assert x["acr_final_mbps"] == pytest.approx(0.9 * 155.52, rel=0.01)
    for c in (x, rev):
        # nothing is overwritten: at d the reverse source (ACR from ICR 20 Mb/s up) has an
        # opportunity within 21 us, before x's next FRM can arrive (Nrm cell times of the
        # 155.52 Mb/s link: 87 us); at h, x offers one BRM slot per Nrm cells at ~140 Mb/s, more
        # often than the reverse (40 Mb/s bursts plus x's BRMs) sends FRMs
        assert c["brm_turned_around"] > 0 and c["brm_overwritten"] == 0
        assert c["cells_sent"] == c["cells_delivered"] + c["cells_dropped"] + c["cells_in_flight"]
    # the reverse direction's RM share is its own FRMs plus the forward loop's BRMs: well above 1/32
    assert rev["rm_overhead"] > 1 / 32 + 0.1
    one_way = atmsim.run(REPO / "scenarios" / "examples" / "abr-n-sources.toml").summary["connections"]
    assert all("brm_turned_around" not in c for c in one_way.values())


def _frms_not_turned_around(fwd: dict, back: dict) -> tuple[int, int]:
    """FRMs ``fwd`` sent that the far end neither sent back nor overwrote, and how many of them can
    still be on the way: the run's last cells of ``fwd`` in the network hold at most one FRM per
    Nrm cells (rule 3a), plus the one turned-around cell that may wait at the far end. Needs
    ``run.warmup_s = 0`` (the RM counters then cover the whole run, as the turnaround counters do).
    ``fwd``'s RM cells are its FRMs plus the BRMs it carries for the other direction's loop."""
    frm = fwd["rm_cells_sent"] - fwd["brm_turned_around"]
    missing = frm - back["brm_turned_around"] - back["brm_overwritten"]
    return missing, math.ceil(fwd["cells_in_flight"] / NRM) + 1


def test_turnaround_accounts_for_every_forward_rm_cell() -> None:
    # each FRM that reached the far end was turned around in rate, or overwritten by a newer one
    # while it waited (DES rule 3), or is the one still waiting
    r = atmsim.run(TWO_WAY, overrides={"run.warmup_s": 0})
    x, rev = r.summary["connections"]["x"], r.summary["connections"]["x.reverse"]
    for fwd, back in ((x, rev), (rev, x)):
        missing, in_flight = _frms_not_turned_around(fwd, back)
        assert 0 <= missing <= in_flight, (missing, in_flight)


@pytest.mark.parametrize("icr_mbps", [1.0, 5.0])
def test_turnaround_overwrites_when_the_reverse_acr_is_too_slow(icr_mbps: float) -> None:
    # the reverse direction carries no data: it sends no FRM, so its ACR stays at ICR and its
    # in-rate opportunities, one per cell time at ICR, are all the far end d has to send x's
    # turned-around RM cells back
    r = atmsim.run(
        TWO_WAY,
        overrides={
            "run.warmup_s": 0,
            "connections.x.reverse_source": {"kind": "none"},
            "connections.x.abr.icr_mbps": icr_mbps,
        },
    )
    x, rev = r.summary["connections"]["x"], r.summary["connections"]["x.reverse"]
    assert rev["acr_final_mbps"] == pytest.approx(icr_mbps)
    assert x["acr_final_mbps"] == pytest.approx(0.9 * LINK_MBPS, rel=0.01)
    assert (x["brm_turned_around"], x["brm_overwritten"]) == (0, 0)  # no reverse FRMs to turn
    missing, in_flight = _frms_not_turned_around(x, rev)
    assert 0 <= missing <= in_flight, (missing, in_flight)
    slots_per_s = icr_mbps * 1e6 / CELL_BITS
    # x's FRMs reach d at most once per Nrm cell times of the last link
    frm_max_per_s = LINK_MBPS * 1e6 / CELL_BITS / NRM
    if slots_per_s > frm_max_per_s:  # 5 Mb/s: 11,792 opportunities/s > 11,462 FRMs/s
        # the waiting cell always leaves before the next FRM can arrive
        assert rev["brm_overwritten"] == 0
    else:  # 1 Mb/s: 2,358 opportunities/s, while x at 140 Mb/s sends 10,300 FRMs/s
        assert rev["brm_overwritten"] > 0
        # from a few round trips on (x's first FRM reaches d after one way, x leaves ICR when the
        # first BRM is back, its FRMs arrive faster than d sends), a cell always waits: d sends
        # one every cell time at ICR, never more often, and none before x's first FRM arrives
        rtt = 2 * ONE_WAY_S
        sent = rev["brm_turned_around"]
        assert (TWO_WAY_S - 4 * rtt) * slots_per_s <= sent <= (TWO_WAY_S - ONE_WAY_S) * slots_per_s + 1
