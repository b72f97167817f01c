"""Video streams over UDP from the front end (seed 004): traces read once from files in both
formats, the frame metrics in the summary, and bad trace input (one line naming the scenario
file, the key path, the trace file and its line; exit 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import atmsim
from atmsim.traces import read_trace, resolve_traces
from conftest import minimal_scenario, run_bad, write_toml

SHARED = Path(__file__).resolve().parents[2] / "shared" / "traces"


def video_scenario(trace: dict[str, Any], **video: Any) -> dict[str, Any]:
    doc = minimal_scenario(0.5)
    doc["traces"] = {"t": trace}
    doc["connections"] = [
        {"name": f"v{i}", "route": ["h1", "S", "h2"], "category": "ubr",
         "source": {"kind": "video", "video": {"trace": "t", "frame_rate": 24, **video}}}
        for i in range(2)
    ]
    return doc


def test_both_trace_formats_are_read(tmp_path: Path) -> None:
    (tmp_path / "sizes.txt").write_text("# frame sizes\n100\n\n2000\n30 # a comment\n")
    (tmp_path / "four.txt").write_text("1\t\tI\t\t0\t\t534\n2\t\tP\t\t120\t\t1542\n3  B  40  134\n")
    assert read_trace(tmp_path / "sizes.txt", "s.toml", "k") == [100, 2000, 30]
    assert read_trace(tmp_path / "four.txt", "s.toml", "k") == [534, 1542, 134]


def test_a_file_is_read_once_and_shared(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("1\n2\n")
    doc = {"traces": {"x": {"file": "a.txt"}, "y": {"file": "./a.txt"}}}
    scen = str(tmp_path / "s.toml")
    resolve_traces(doc, lambda key: scen)
    assert doc["traces"]["x"]["frames"] is doc["traces"]["y"]["frames"]


def test_video_run_reports_frame_metrics(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("\n".join(str(500 + 300 * (i % 7)) for i in range(100)) + "\n")
    f = write_toml(tmp_path / "v.toml", video_scenario({"file": "t.txt"}))
    r = atmsim.run(str(f))
    for name in ("v0", "v1"):
        v = r.summary["connections"][name]["video"]
        assert v["frames_sent"] == 12  # 24 frames/s for 0.5 s
        assert v["frames_lost"] == 0
        assert v["frames_received"] >= 11  # the last may still be on its way
        assert sum(v["interval_hist"]) == v["intervals"]
    offsets = {r.summary["connections"][n]["video"]["trace_offset"] for n in ("v0", "v1")}
    assert len(offsets) == 2


@pytest.mark.skipif(not (SHARED / "jurassic-park.txt").exists(), reason="../shared/traces/ is not here")
def test_the_shared_mpeg4_trace_reads_whole() -> None:
    sizes = read_trace(SHARED / "jurassic-park.txt", "s.toml", "k")
    lines = [ln for ln in (SHARED / "jurassic-park.txt").read_text().splitlines() if ln.strip()]
    assert len(sizes) == len(lines)
    assert sizes[:5] == [534, 1542, 134, 390, 765]


@pytest.mark.parametrize(
    "content, words",
    [
        (None, "trace file not found"),
        ("", "has no frame sizes"),
        ("# only a comment\n\n", "has no frame sizes"),
        ("100\n2x0\n", "line 2: the frame size is not an integer"),  # the line's text not shown
        ("100\n200\n-5\n", "line 3: the frame size is not in 0..="),
        ("1 I 0\n", "line 1: expected one frame size or 4 columns"),
        (b"\xff\xfe\n", "is not UTF-8 text"),
    ],
)
def test_bad_trace_file(tmp_path: Path, capsys, content: Any, words: str) -> None:
    t = tmp_path / "trace.txt"
    if isinstance(content, bytes):
        t.write_bytes(content)
    elif content is not None:
        t.write_text(content)
    f = write_toml(tmp_path / "v.toml", video_scenario({"file": "trace.txt"}))
    line = run_bad(capsys, tmp_path, f)
    assert f"atmsim: error: {f}: traces.t.file: " in line, line
    assert words in line, line
    if content is not None:
        assert str(t) in line


@pytest.mark.parametrize(
    "change, path, words",
    [
        (lambda d: d["connections"][0]["source"]["video"].update(frame_rate=0), "connections[0].source.video.frame_rate", ""),
        (lambda d: d["connections"][0]["source"]["video"].update(trace="nope"), "connections[0].source.video.trace", "no trace \"nope\""),
        (lambda d: d["connections"][0]["source"]["video"].update(mtu_bytes=28), "connections[0].source.video.mtu_bytes", "29..=65527"),
        (lambda d: d["connections"][0]["source"].pop("video"), "connections[0].source.video", "required for kind video"),
        (lambda d: d["traces"]["t"].update(frames=[]), "traces.t.frames", "at least one"),
        (lambda d: d["traces"]["t"].update(frames=[5, -1]), "traces.t.frames[1]", "got -1"),
        (lambda d: d["connections"][0]["source"].update(rate_mbps=3), "connections[0].source.rate_mbps", "not used by kind"),
        # video over TCP: source.tcp only with transport tcp; the UDP MTU key not with it; TCP keys checked
        (lambda d: d["connections"][0]["source"].update(tcp={"mss_bytes": 1000}), "connections[0].source.tcp",
         'only with video.transport = "tcp"'),
        (lambda d: d["connections"][0]["source"]["video"].update(transport="tcp", mtu_bytes=1500),
         "connections[0].source.video.mtu_bytes", "udp only"),
        (lambda d: (d["connections"][0]["source"]["video"].update(transport="tcp"),
                    d["connections"][0]["source"].update(tcp={"mss_bytes": 0})),
         "connections[0].source.tcp.mss_bytes", ""),
        (lambda d: d["connections"][0]["source"]["video"].update(transport="quic"),
         "connections[0].source.video.transport", ""),
    ],
)
def test_bad_video_keys(tmp_path: Path, capsys, change, path: str, words: str) -> None:
    doc = video_scenario({"frames": [100, 200]})
    change(doc)
    f = write_toml(tmp_path / "v.toml", doc)
    line = run_bad(capsys, tmp_path, f)
    assert f"atmsim: error: {f}: {path}" in line, line
    assert words in line, line


def test_video_over_tcp_reports_frame_metrics_and_tcp(tmp_path: Path) -> None:
    """A stream over TCP has the frame metrics of a UDP stream, no frame lost, its transport
    named, and the connection's TCP block (its segments and bytes)."""
    doc = video_scenario({"frames": [3000, 12000, 500]}, transport="tcp", random_offset=False)
    doc["connections"][0]["source"]["tcp"] = {"mss_bytes": 1460}
    doc["connections"] = doc["connections"][:1]
    r = atmsim.run(str(write_toml(tmp_path / "v.toml", doc)))
    c = r.summary["connections"]["v0"]
    v = c["video"]
    assert v["transport"] == "tcp" and v["frames_lost"] == 0
    assert v["frames_received"] > 0 and v["frames_sent"] >= v["frames_received"]
    assert c["tcp"]["segments_sent"] > 0
    # the receiver has read whole frames of the trace, in play order from index 0
    sizes = [3000, 12000, 500]
    got = sum(sizes[m % 3] for m in range(v["frames_received"]))
    assert c["tcp"]["bytes_delivered"] >= got
