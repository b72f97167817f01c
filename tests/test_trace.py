"""Traces (issue 28, docs/tracing.md): the rows of ``run.trace`` agree with the summary's
counters of the traced connection (each cell emitted, delivered and dropped once, by reason, and
each TCP segment sent or retransmitted once), the filters select what they say, tracing changes
no result, the file streams in row groups, and bad input is one line with exit code 2."""

from __future__ import annotations

import json

import numpy as np
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import atmsim
from atmsim.cli import main
from atmsim.tracing import COLUMNS, KINDS

from conftest import abr_scenario, minimal_scenario, onoff_scenario, run_bad, write_toml


def _lossy_tcp(duration_s: float = 0.3) -> dict:
    """A Reno TCP connection t1 and a 100 Mb/s persistent UBR source into one 149.76 Mb/s port
    with a 100-cell buffer: both lose cells, and t1 retransmits."""
    doc = onoff_scenario(duration_s)
    doc["connections"][0] = {
        "name": "t1", "route": ["h0", "S", "h2"], "category": "ubr",
        "source": {"kind": "tcp", "tcp": {"recovery": "reno"}},
    }
    return doc


def _flows_of(frame, name: str):
    return frame[frame["connection"].astype(str) == name]


def _count(frame, kind: str) -> int:
    return int((frame["kind"].astype(str) == kind).sum())


def test_rows_equal_the_summary_counters(tmp_path: Path) -> None:
    doc = _lossy_tcp()
    doc["run"]["trace"] = {"connections": ["t1"]}
    r = atmsim.run(doc, out=tmp_path / "out")
    t = r.trace()
    assert set(t["connection"].astype(str)) == {"t1", "t1.reverse"}
    conns = r.summary["connections"]
    for flow in ("t1", "t1.reverse"):
        rows, c = _flows_of(t, flow), conns[flow]
        assert _count(rows, "emit") == c["cells_sent"], flow
        assert _count(rows, "deliver") == c["cells_delivered"], flow
        drops = rows[rows["kind"].astype(str) == "drop"]
        assert len(drops) == c["cells_dropped"], flow
        by_reason = drops["reason"].astype(str).value_counts().to_dict()
        assert by_reason == {k: v for k, v in c["drops"].items() if v}, flow
        assert _count(rows, "frame_sent") == c["frames_sent"], flow
        assert _count(rows, "frame_received") == c["frames_delivered"], flow
    assert conns["t1"]["cells_dropped"] > 0, "the scenario is meant to lose cells"
    tcp = conns["t1"]["tcp"]
    assert tcp["retransmitted_segments"] > 0
    assert _count(t, "tcp_retransmitted") == tcp["retransmitted_segments"]
    assert _count(t, "tcp_sent") + _count(t, "tcp_retransmitted") == tcp["segments_sent"]
    # conservation: a cell emitted and neither delivered nor dropped is in the network at the
    # end; a cell offered to a port departs or is dropped there unless still queued at the end
    for flow in ("t1", "t1.reverse"):
        rows = _flows_of(t, flow)
        emit, deliver, drop = (_count(rows, k) for k in ("emit", "deliver", "drop"))
        assert emit - deliver - drop == conns[flow]["cells_in_flight"]
        assert _count(rows, "enqueue") >= _count(rows, "depart") + drop
        assert _count(rows, "depart") >= _count(rows, "arrive")
    assert r.summary["trace"]["rows"] == len(t)


def test_tracing_changes_no_result() -> None:
    doc = _lossy_tcp(0.1)
    plain = atmsim.run(doc).summary
    doc["run"]["trace"] = {}
    traced = atmsim.run(doc).summary
    for s in (plain, traced):
        s.pop("wall_time_s", None)
        s.pop("trace", None)
    assert json.dumps(plain, sort_keys=True) == json.dumps(traced, sort_keys=True)


def test_filters_select_what_they_say(tmp_path: Path) -> None:
    doc = onoff_scenario(0.02)
    doc["run"]["trace"] = {"ports": ["S->h2"], "kinds": ["depart", "drop"], "from_s": 0.005, "to_s": 0.01}
    r = atmsim.run(doc)
    t = r.trace()
    assert len(t) > 0
    assert set(t["port"].astype(str)) == {"S->h2"}
    assert set(t["kind"].astype(str)) <= {"depart", "drop"}
    assert t["time_s"].min() >= 0.005 and t["time_s"].max() < 0.01
    assert list(t["time_s"]) == sorted(t["time_s"])
    # one connection of two, by node: only h0's cells at h0
    doc["run"]["trace"] = {"connections": ["vbr"], "nodes": ["h0"]}
    t = atmsim.run(doc).trace()
    assert set(t["connection"].astype(str)) == {"vbr"} and set(t["node"].astype(str)) == {"h0"}
    assert set(t["kind"].astype(str)) == {"emit", "enqueue", "depart"}
    # Result.trace's own filters
    t = r.trace(kind="drop")
    assert set(t["kind"].astype(str)) <= {"drop"}


def test_rm_cells_carry_their_fields() -> None:
    doc = abr_scenario(0.02)
    doc["run"]["trace"] = {"kinds": ["rm_backward"]}
    t = atmsim.run(doc).trace()
    assert len(t) > 0 and t["rm"].all() and t["rm_backward"].all()
    delivered = t[t["kind"].astype(str) == "deliver"]
    # the ERICA switch writes an explicit rate no higher than the link's 149.76 Mb/s
    assert (delivered["rm_er_mbps"] <= 149.76 + 1e-3).all() and (delivered["rm_er_mbps"] > 0).all()
    assert t["rm_ccr_mbps"].notna().all()


def test_the_trace_streams_in_row_groups(tmp_path: Path) -> None:
    doc = minimal_scenario(0.05)
    doc["run"]["trace"] = {}
    r = atmsim.run(doc, out=tmp_path / "out", chunk_events=2000)  # a row group a slice
    f = pq.ParquetFile(tmp_path / "out" / "trace.parquet")
    assert f.metadata.num_rows == r.summary["trace"]["rows"] > 0
    assert f.metadata.num_row_groups > 1
    assert [c[0] for c in COLUMNS] == f.schema_arrow.names
    # Result.read finds the trace, and it is no series
    back = atmsim.Result.read(tmp_path / "out")
    assert back.has_trace and "trace" not in back.series_names
    assert len(back.trace()) == f.metadata.num_rows


def test_a_run_without_trace_has_none() -> None:
    r = atmsim.run(minimal_scenario(0.005))
    assert not r.has_trace and "trace" not in r.summary
    with pytest.raises(atmsim.ScenarioError, match="run.trace"):
        r.trace()


def test_event_log_prints_aligned_lines(tmp_path: Path, capsys) -> None:
    doc = _lossy_tcp()
    doc["run"]["trace"] = {"connections": ["t1"]}
    atmsim.run(doc, out=tmp_path / "out")
    # t1 loses cells at its start and again after its timeout, near 0.2 s
    assert main(["trace", str(tmp_path / "out"), "--kind", "drop", "--from", "0.1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("# time_s")
    body = lines[1:]
    assert body and all(" drop " in line and "reason=port_buffer_full" in line for line in body)
    assert all(float(line.split()[0]) >= 0.1 for line in body)
    assert main(["trace", str(tmp_path / "out"), "--connection", "t1", "--kind", "tcp_retransmitted"]) == 0
    out = capsys.readouterr().out.splitlines()[1:]
    assert out and all("tcp_seq=" in line for line in out)


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("run.trace.connections", '["nope"]', "run.trace.connections[0]"),
        ("run.trace.ports", '["h1->h2"]', "run.trace.ports[0]"),
        ("run.trace.nodes", '["Q"]', "run.trace.nodes[0]"),
        ("run.trace.kinds", '["bogus"]', "run.trace.kinds[0]"),
        ("run.trace.to_s", "0", "run.trace.to_s"),
        ("run.trace.max_rows", "1000", "run.trace.max_rows"),
    ],
)
def test_bad_trace_settings(capsys, tmp_path: Path, key: str, value: str, says: str) -> None:
    path = write_toml(tmp_path / "s.toml", minimal_scenario(0.01))
    line = run_bad(capsys, tmp_path, path, "--set", f"{key}={value}")
    assert says in line


def test_a_trace_too_large_is_refused_naming_the_key(capsys, tmp_path: Path) -> None:
    doc = minimal_scenario(10.0)
    doc["run"]["trace"] = {}
    line = run_bad(capsys, tmp_path, write_toml(tmp_path / "s.toml", doc))
    assert "run.trace:" in line and "max_rows" in line


def _bad_trace_cmd(capsys, *args: str) -> str:
    code = main(["trace", *args])
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in captured.err, captured
    assert captured.out == ""
    return lines[0]


def test_bad_trace_command_input(capsys, tmp_path: Path) -> None:
    doc = minimal_scenario(0.01)
    doc["run"]["trace"] = {}
    out = tmp_path / "out"
    atmsim.run(doc, out=out)
    assert "--connection" in _bad_trace_cmd(capsys, str(out), "--connection", "zz")
    assert "--kind" in _bad_trace_cmd(capsys, str(out), "--kind", "nope")
    assert "--to" in _bad_trace_cmd(capsys, str(out), "--from", "0.005", "--to", "0.002")
    assert "--pcap" in _bad_trace_cmd(capsys, str(out), "--pcap", str(tmp_path))
    assert "missing trace.parquet" in _bad_trace_cmd(capsys, str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_every_kind_is_documented() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "tracing.md").read_text()
    for k in KINDS:
        assert f"`{k}`" in text, k
    for c in COLUMNS:
        assert f"`{c[0]}`" in text, c[0]


@pytest.mark.parametrize("case", ["abr", "shaped"])
def test_emit_and_deliver_rows_where_cells_enter_otherwise(case: str) -> None:
    """RM cells (sent as built cells) and a shaped flow's cells (held by the source shaper)
    have their emit rows written where they are created, not at their first port: the counts
    still equal the summary's."""
    if case == "abr":
        doc = abr_scenario(0.02)
        doc["connections"][0]["source"] = {"kind": "tcp"}
    else:
        doc = minimal_scenario(0.02)
        doc["connections"][0].update(
            category="cbr", contract={"pcr_mbps": 10.0, "cdvt_us": 0.0},
            source={"kind": "tcp", "shape": True},
        )
    doc["run"]["trace"] = {}
    r = atmsim.run(doc)
    t = r.trace()
    for flow, c in r.summary["connections"].items():
        rows = _flows_of(t, flow)
        assert _count(rows, "emit") == c["cells_sent"], flow
        assert _count(rows, "deliver") == c["cells_delivered"], flow
        assert _count(rows, "frame_sent") == c.get("frames_sent", 0), flow
    if case == "abr":
        assert t["rm"].sum() > 0


def test_result_shows_itself_in_jupyter() -> None:
    doc = minimal_scenario(0.005)
    doc["run"]["trace"] = {"kinds": ["deliver"]}
    r = atmsim.run(doc)
    page = r._repr_html_()
    assert page.count("<table") == 2 and "h1-&gt;S" in page and "<td>c1</td>" in page
    assert f"trace: {len(r.trace())} rows" in page


def _lossless_tcp(duration_s: float = 0.1) -> dict:
    """Reno TCP t1 alone into a 20,000-cell buffer, traced from time 0 (no loss, no timeout)."""
    doc = _lossy_tcp(duration_s)
    doc["connections"] = doc["connections"][:1]
    doc["nodes"][2]["buffer_cells"] = 20000
    doc["run"].update({"sample_interval_s": 0.001, "trace": {"connections": ["t1"], "kinds": ["tcp_sent", "tcp_acked"]}})
    return doc


def test_cwnd_in_the_trace_is_the_sampled_cwnd() -> None:
    """The sender's cwnd changes only when it takes an ACK (no loss, no timeout here), and a
    tcp_acked row holds the cwnd before its ACK is taken: so the first tcp_acked row after a
    sample instant holds the cwnd the tcp series sampled then, and every tcp_sent row between two
    ACKs holds the same value as the ACK row that follows it."""
    r = atmsim.run(_lossless_tcp())
    tcp = r.summary["connections"]["t1"]["tcp"]
    assert tcp["timeouts"] == 0 and tcp["retransmitted_segments"] == 0
    t = r.trace()
    acked = t[(t["kind"].astype(str) == "tcp_acked") & (t["connection"].astype(str) == "t1.reverse")]
    sent = t[t["kind"].astype(str) == "tcp_sent"]
    assert len(acked) > 100 and len(sent) > 100
    times = acked["time_s"].to_numpy()
    cwnd = acked["tcp_cwnd_bytes"].to_numpy(dtype="uint64")
    series = r.series("tcp", where={"connection": "t1"})
    compared = 0
    for s, value in zip(series["time_s"], series["cwnd_bytes"]):
        k = int(np.searchsorted(times, s, side="right"))
        if k < len(times) and times[k] != s and (k == 0 or times[k - 1] != s):
            assert cwnd[k] == value, (s, k)
            compared += 1
    assert compared > 50
    nxt = np.searchsorted(times, sent["time_s"].to_numpy(), side="right")
    inside = nxt < len(times)
    assert (sent["tcp_cwnd_bytes"].to_numpy(dtype="uint64")[inside] == cwnd[nxt[inside]]).all()
    # no loss: slow start throughout, ssthresh still the model's unbounded 2^62 - 1
    assert set(acked["tcp_ssthresh_bytes"]) == set(sent["tcp_ssthresh_bytes"]) == {2**62 - 1}
    assert t["tcp_cwnd_bytes"].notna().all()
    assert cwnd.max() > cwnd.min()  # it grew


def test_cwnd_after_a_loss_and_only_on_segment_rows() -> None:
    """With loss (Reno), every tcp_retransmitted row's ssthresh is a whole number of segments, at
    least two (TcpSender: max(2, min(cwnd, rwnd) / 2 / MSS) x MSS); rows other than the segment
    kinds carry no window."""
    doc = _lossy_tcp(0.3)
    mss = 512
    doc["connections"][0]["source"]["tcp"]["mss_bytes"] = mss
    doc["run"]["trace"] = {"connections": ["t1"]}
    r = atmsim.run(doc)
    t = r.trace()
    kinds = t["kind"].astype(str)
    seg = kinds.isin(["tcp_sent", "tcp_retransmitted", "tcp_acked"])
    assert t.loc[~seg, "tcp_cwnd_bytes"].isna().all() and t.loc[~seg, "tcp_ssthresh_bytes"].isna().all()
    assert t.loc[seg, "tcp_cwnd_bytes"].notna().all()
    again = t[kinds == "tcp_retransmitted"]
    assert len(again) > 0
    ssthresh = again["tcp_ssthresh_bytes"].to_numpy(dtype="uint64")
    assert (ssthresh % mss == 0).all() and (ssthresh >= 2 * mss).all(), (mss, ssthresh[:5])


def test_trace_reads_only_the_columns_asked_for(tmp_path: Path) -> None:
    doc = _lossy_tcp(0.05)
    doc["run"]["trace"] = {"connections": ["t1"]}
    r = atmsim.run(doc, out=tmp_path / "run")
    full = r.trace(connection="t1", kind="drop")
    some = r.trace(connection="t1", kind="drop", columns=["port", "reason"])
    assert list(some.columns) == ["time_s", "port", "reason"] and len(full) > 0
    assert some.equals(full[["time_s", "port", "reason"]])
