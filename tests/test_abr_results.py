"""ABR additions on the Python surface: summary fields, the abr_sources / abr_ports series,
writing and reading every series, plots and the CLI table."""

from __future__ import annotations

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
    text = format_summary(r.summary)
    for col in ("ACR final", "ACR mean", "RM overhead", "z mean", "fair share Mb/s"):
        assert col in text


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


def test_bidirectional_abr_example() -> None:
    # scenarios/examples/abr-two-way.toml: the forward loop settles at ERICA's target, the far end
    # turns every forward RM cell around in rate (or overwrites it while waiting), the near end
    # those of the reverse direction; conservation holds both ways
    r = atmsim.run(REPO / "scenarios" / "examples" / "abr-two-way.toml")
    x, rev = r.summary["connections"]["x"], r.summary["connections"]["x.reverse"]
    assert x["acr_final_mbps"] == pytest.approx(0.9 * 155.52, rel=0.01)
    for c in (x, rev):
        assert c["brm_turned_around"] > 0 and c["brm_overwritten"] >= 0
        assert c["cells_sent"] == c["cells_delivered"] + c["cells_dropped"] + c["cells_in_flight"]
    # the reverse direction's RM share is its own FRMs plus the forward loop's BRMs: well above 1/32
    assert rev["rm_overhead"] > 1 / 32 + 0.1
    one_way = atmsim.run(REPO / "scenarios" / "examples" / "abr-n-sources.toml").summary["connections"]
    assert all("brm_turned_around" not in c for c in one_way.values())
