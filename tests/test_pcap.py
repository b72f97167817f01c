"""Captures for Wireshark (issue 28, docs/tracing.md): ``atmsim trace DIR --pcap FILE`` writes the
traced AAL5 frames with LINKTYPE_SUNATM, and the real ``tshark`` (Debian package ``tshark``,
installed by ``make test``: the Makefile's ``capture-deps``) decodes them: ATM with the trace's
VPI/VCI, LLC/SNAP, IPv4, TCP with the model's sequence and acknowledgement numbers, and its TCP
analysis counts as many retransmissions as the model's TCP sender made. Skips with the reason when
tshark is missing, except under CI=true, where it fails."""

from __future__ import annotations

import calendar
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import atmsim
from atmsim.cli import main

from conftest import onoff_scenario


def _tshark() -> str:
    path = shutil.which("tshark")
    if path is None:
        reason = "tshark is not installed (make capture-deps installs Debian's tshark as root)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + " (CI=true: the capture test must run)")
        pytest.skip(reason)
    return path


def _fields(tshark: str, pcap: Path, *fields: str, display: str | None = None) -> list[list[str]]:
    cmd = [tshark, "-r", str(pcap), "-T", "fields", "-E", "separator=;"]
    for f in fields:
        cmd += ["-e", f]
    if display:
        cmd += ["-Y", display]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120).stdout
    return [line.split(";") for line in out.splitlines() if line]


def _lossy_tcp_run(tmp_path: Path) -> tuple[atmsim.Result, Path]:
    """Reno TCP t1 beside a 100 Mb/s UBR source into a 100-cell buffer: lost cells, fast
    retransmits and a timeout (tests/test_trace.py has the same scenario)."""
    doc = onoff_scenario(0.3)
    doc["connections"][0] = {
        "name": "t1", "route": ["h0", "S", "h2"], "category": "ubr",
        "source": {"kind": "tcp", "tcp": {"recovery": "reno"}},
    }
    doc["run"]["trace"] = {"connections": ["t1"]}
    out = tmp_path / "out"
    return atmsim.run(doc, out=out), out


def test_tshark_decodes_the_capture(tmp_path: Path, capsys) -> None:
    tshark = _tshark()
    r, out = _lossy_tcp_run(tmp_path)
    pcap = tmp_path / "t1.pcap"
    assert main(["trace", str(out), "--pcap", str(pcap)]) == 0
    capsys.readouterr()
    sent = r.trace(kind="frame_sent")
    rows = _fields(tshark, pcap, "frame.protocols", "atm.vpi", "atm.vci", "tcp.seq_raw", "tcp.ack_raw", "tcp.len", "ip.len")
    assert len(rows) == len(sent) > 0
    for row, (_, f) in zip(rows, sent.iterrows()):
        protocols, vpi, vci, seq, ack, tcp_len, ip_len = row
        assert protocols.startswith("atm:llc:ip:tcp"), protocols
        assert (int(vpi), int(vci)) == (f["vpi"], f["vci"])
        assert int(ip_len) == f["aal5_len"] - 8  # the SDU less LLC/SNAP
        assert int(tcp_len) == f["aal5_len"] - 48
        if f["seg_data"]:
            assert int(seq) == f["seg_seq"]
        if f["seg_ack"]:
            assert int(ack) == f["seg_ack_no"]
    tcp = r.summary["connections"]["t1"]["tcp"]
    assert tcp["retransmitted_segments"] > 0
    retransmitted = _fields(tshark, pcap, "tcp.seq_raw", display="tcp.analysis.retransmission")
    assert len(retransmitted) == tcp["retransmitted_segments"]
    model = r.trace(kind="tcp_retransmitted")
    assert [int(s[0]) for s in retransmitted] == list(model["seg_seq"])


def test_the_wan_capture_opens(tmp_path: Path, capsys) -> None:
    """Seed 000's WAN scenario (15 TCP connections over ABR), 50 ms of tcp1: the data segments
    in the capture are the trace's, and the ACKs come back on the same VC."""
    tshark = _tshark()
    repo = Path(__file__).resolve().parent.parent
    out = tmp_path / "wan"
    r = atmsim.run(
        repo / "scenarios" / "seed000" / "wan.toml",
        {"run.trace.connections": ["tcp1"], "run.trace.from_s": 0.1, "run.trace.to_s": 0.15},
        duration=0.16, out=out,
    )
    pcap = tmp_path / "tcp1.pcap"
    assert main(["trace", str(out), "--pcap", str(pcap)]) == 0
    capsys.readouterr()
    data = _fields(tshark, pcap, "atm.vci", "tcp.seq_raw", "tcp.srcport", display="tcp.len > 0")
    model = r.trace(kind="tcp_sent")
    assert len(data) == len(model) > 0
    assert [int(d[1]) for d in data] == list(model["seg_seq"])
    assert {int(d[0]) for d in data} == set(r.trace(kind="frame_sent")["vci"]) == {32}


def test_the_worked_example_runs_as_pasted(tmp_path: Path) -> None:
    """docs/tracing.md's commands, run as they are written, from a directory that has the
    repository's scenarios (so results/ is a fresh one)."""
    _tshark()
    repo = Path(__file__).resolve().parent.parent
    text = (repo / "docs" / "tracing.md").read_text()
    block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    (tmp_path / "scenarios").symlink_to(repo / "scenarios")
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run(["bash", "-e", "-c", block], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any("tcp_sent" in line for line in lines) and any("rm=bwd" in line for line in lines)
    assert any("TCP" in line and "10000" in line for line in lines)


def _ns(text: str) -> int:
    """Nanoseconds of tshark's ``frame.time_epoch`` (``SECONDS.NNNNNNNNN``), exactly."""
    sec, _, frac = text.partition(".")
    return int(sec) * 10**9 + int((frac + "000000000")[:9])


@pytest.mark.parametrize("epoch, start_ns", [
    (None, calendar.timegm((2000, 1, 1, 0, 0, 0)) * 10**9),  # the documented default
    ("2026-11-26T15:30:00+01:00", calendar.timegm((2026, 11, 26, 14, 30, 0)) * 10**9),
    ("2026-11-26T14:30:00", calendar.timegm((2026, 11, 26, 14, 30, 0)) * 10**9),  # no offset: UTC
    ("1795703400.5", calendar.timegm((2026, 11, 26, 14, 30, 0)) * 10**9 + 500_000_000),
    ("0", 0),  # simulated time as it is
])
def test_capture_starts_at_the_epoch(epoch: str | None, start_ns: int, tmp_path: Path, capsys) -> None:
    """Each packet's time in tshark is the epoch plus the frame's simulated time, to the
    nanosecond (a float of seconds since 1970 would keep about 0.2 us)."""
    tshark = _tshark()
    r, out = _lossy_tcp_run(tmp_path)
    pcap = tmp_path / "t1.pcap"
    assert main(["trace", str(out), "--pcap", str(pcap)] + ([] if epoch is None else ["--epoch", epoch])) == 0
    capsys.readouterr()
    stamps = [_ns(row[0]) for row in _fields(tshark, pcap, "frame.time_epoch")]
    sent = r.trace(kind="frame_sent")
    assert stamps == [start_ns + round(t * 1e9) for t in sent["time_s"]]
    if epoch is None:
        assert "2000" in _fields(tshark, pcap, "frame.time")[0][0]


@pytest.mark.parametrize("args, says", [
    (["--pcap", "{pcap}", "--epoch", "yesterday"], "--epoch: 'yesterday' is not a time"),
    (["--pcap", "{pcap}", "--epoch", "1969-12-31T23:59:59Z"], "--epoch: '1969-12-31T23:59:59Z' is outside"),
    (["--pcap", "{pcap}", "--epoch", "4294967295"], "--epoch: the capture would end after 2106-02-07"),
    (["--epoch", "0"], "--epoch: applies to a capture only"),
])
def test_bad_epoch_is_one_line_and_writes_nothing(args: list[str], says: str, tmp_path: Path, capsys) -> None:
    _, out = _lossy_tcp_run(tmp_path)
    pcap = tmp_path / "t1.pcap"
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["trace", str(out)] + [a.format(pcap=pcap) for a in args]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1 and says in captured.err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
