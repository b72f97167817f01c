"""Fuzzing the other inputs a user gives (issue 31 item 5), beside the scenario fuzzer
(test_fuzz_scenarios.py): trace files, workload scripts, the fabric and host tables of a node,
study files and results queries. Each generator draws from the input's grammar and from noise
(other scripts' digits, separators, signs, huge numbers, invalid UTF-8, long lines, SQL that
writes or reads files). Asserted for every case: no crash (only a one-line ``ScenarioError``),
no hang (each case bounded), and for what is accepted, an independent check (a trace's sizes
against a plain reading of the lines, a scenario that builds and runs its first events, a study
whose runs are within the caps, a query that reads nothing but the study).

``make test`` runs a bounded, derandomized number of examples (``ATMSIM_FUZZ_EXAMPLES``, default
400, shared by the five generators here); ``make fuzz`` runs many more with fresh randomness.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atmsim import ScenarioError, _core
from atmsim.scenario import Provenance, check_document
from atmsim.study import make_spec
from atmsim.study.spec import MAX_POINTS, MAX_RUNS
from atmsim.traces import MAX_FRAME_BYTES, read_trace

from conftest import minimal_scenario, write_toml

EXAMPLES = int(os.environ.get("ATMSIM_FUZZ_EXAMPLES", "400"))
LONG = "ATMSIM_FUZZ_EXAMPLES" in os.environ
EACH = max(20, EXAMPLES // 5)  # the five generators share the examples
FUZZ = settings(max_examples=EACH, deadline=None, derandomize=not LONG, database=None,
                suppress_health_check=list(HealthCheck))


def _one_line(e: ScenarioError) -> None:
    line = str(e)
    assert "\n" not in line and len(line) < 800, line
    assert "Traceback" not in line and "internal error" not in line, line


# ---------------------------------------------------------------------------------- traces

NOISE_WORDS = ["1_000", "\u0661\u0662", "\u06f1", "\uff11", "+5", "-5", "0x10", "1e3", "1.5", "99999999999999999999",
               "67108864", "67108865", "0", "\u00a0", "I", "P", "B", "#", "nan", "\u2003"]
trace_line = st.one_of(
    st.integers(0, 2 * MAX_FRAME_BYTES).map(str),
    st.tuples(st.integers(0, 10**6), st.sampled_from("IPB"), st.integers(0, 10**6), st.integers(0, 70_000_000))
    .map(lambda t: "\t".join(map(str, t))),
    st.lists(st.sampled_from(NOISE_WORDS), min_size=1, max_size=5).map(" ".join),
    st.text(max_size=30),
    st.just(""),
    st.just("# a comment"),
    st.integers(4000, 5000).map(lambda n: "1" * n),  # a line at and past the line limit
)
trace_bytes = st.one_of(
    st.lists(trace_line, max_size=40).map(lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass")),
    st.binary(max_size=200),
)


def _plain_reading(data: bytes) -> list[int] | None:
    """The sizes an accepted trace must give, read plainly: one or four columns, the last ASCII
    digits within the frame limit; None if some line is not so."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    out = []
    for raw in re.split(r"\r?\n", text):
        if len(raw.encode()) > 4096:
            return None
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        cols = line.split()
        if len(cols) not in (1, 4) or not re.fullmatch(r"[0-9]+", cols[-1]) or int(cols[-1]) > MAX_FRAME_BYTES:
            return None
        out.append(int(cols[-1]))
    return out or None


@FUZZ
@given(trace_bytes)
def test_fuzz_trace_files(tmp_path_factory, data: bytes) -> None:
    f = tmp_path_factory.mktemp("trace") / "t.txt"
    f.write_bytes(data)
    want = _plain_reading(data)
    try:
        got = read_trace(f, "s.toml", "traces.t.file")
    except ScenarioError as e:
        _one_line(e)
        assert want is None, (data[:200], str(e))
        return
    assert got == want, data[:200]


# ------------------------------------------------------------------------- workload scripts

OPS = ["bulk_get", "bulk_put", "rr", "request_response", "parallel", "parallel 2", "bulk", "get"]
DISTS = ["1000", "0", "-1", "1e300", "const(10)", "constant(5)", "bivalued(10,9000,0.75)", "bvalue(1,2,3)", "exp(0.2)",
         "exp(0)", "exp(-1)", "1_000", "\u0661", "4294967295", "4294967296", "nan", "inf"]
script_token = st.one_of(st.sampled_from(OPS), st.sampled_from(DISTS), st.sampled_from([";", ":", "|", "*", ",", "(", ")",
                                                                                     "#", "\n", " "]),
                         st.integers(0, 2**33).map(str), st.text(max_size=4))


@st.composite
def scripts(draw) -> str:
    if draw(st.booleans()):
        # the grammar's shape with odd parts
        runs = draw(st.sampled_from(["1", "2", "0", "4294967295", "x"]))
        op = draw(st.sampled_from(OPS[:4]))
        size = draw(st.sampled_from(DISTS))
        count = draw(st.sampled_from(["1", "3", "0", "4294967295", "99999999999"]))
        tail = draw(st.sampled_from(["", " exp(0.01)", " 0.001", " bivalued(0,1,0.5)"]))
        body = f"{op} {size},{size}*{count}{tail}" if op.startswith("r") else f"{op} {size}*{count}{tail}"
        return f"{runs} {body};" + draw(st.sampled_from(["", f"\n{runs} parallel: 1 {body} | 1 {body};"]))
    return "".join(draw(st.lists(script_token, max_size=20)))


def _workload_doc(script: str) -> dict[str, Any]:
    doc = minimal_scenario(0.002)
    doc["connections"][0]["category"] = "ubr"
    doc["connections"][0]["source"] = {"kind": "workload", "workload": {"script": script, "transport": "tcp"}}
    return doc


@FUZZ
@given(scripts())
def test_fuzz_workload_scripts(monkeypatch, script: str) -> None:
    monkeypatch.setenv("ATMSIM_MAX_MEMORY_MB", "3000")
    try:
        text = check_document(_workload_doc(script), Provenance("fuzz.toml"))
    except ScenarioError as e:
        _one_line(e)
        return
    sim = _core.Simulation(text)
    # bounded work: each event of the runner takes at most ACTS_PER_CALL actions
    sim.advance(300, 10_000)


# --------------------------------------------------------------------- fabric and host tables

fabric_values = st.one_of(st.integers(-5, 2**40), st.floats(allow_nan=True, allow_infinity=True), st.booleans(),
                          st.sampled_from(["output", "credit", "fifo", "voq", "x", ""]), st.none())
FABRIC_KEYS = ["kind", "input_buffer_cells", "output_buffer_cells", "credits", "bus_mbps", "queueing", "high", "nope"]
HOST_KEYS = ["preset", "per_packet_us", "per_byte_ns", "per_tsdu_us", "send_buffer_bytes", "receive_buffer_bytes",
             "interrupt_us", "nope"]


@st.composite
def node_tables(draw) -> dict[str, Any]:
    doc = minimal_scenario(0.002)
    if draw(st.booleans()):
        fab = {"kind": draw(st.sampled_from(["output", "credit", "credit", "x"]))}
        for k in draw(st.lists(st.sampled_from(FABRIC_KEYS), max_size=5)):
            fab[k] = draw(fabric_values)
        doc["nodes"][1]["fabric"] = fab
    else:
        host: dict[str, Any] = {}
        if draw(st.booleans()):
            host["preset"] = draw(st.sampled_from(["seed001-lan", "seed004", "nope", ""]))
        for k in draw(st.lists(st.sampled_from(HOST_KEYS), max_size=5)):
            host[k] = draw(fabric_values)
        doc["nodes"][draw(st.sampled_from([0, 1, 2]))]["host"] = host
    return doc


@FUZZ
@given(node_tables())
def test_fuzz_fabric_and_host_tables(monkeypatch, doc: dict[str, Any]) -> None:
    monkeypatch.setenv("ATMSIM_MAX_MEMORY_MB", "3000")
    try:
        text = check_document(doc, Provenance("fuzz.toml"))
    except ScenarioError as e:
        _one_line(e)
        assert e.path.startswith("nodes") or e.path.startswith("connections") or e.path == "", str(e)
        return
    sim = _core.Simulation(text)
    sim.advance(20_000, 10_000)


# ------------------------------------------------------------------------------ study files

axis_values = st.one_of(
    st.lists(st.one_of(st.integers(-5, 200), st.floats(0, 200)), max_size=4),
    st.sampled_from(["range(10, 50, 10)", "range(0,1e300,1e-300)", "range(1, 0, 1)", "linspace(0, 1, 5)",
                     "linspace(0,1,1e9)", "geom(1, 1e300, 1.0000001)", "geom(0, 1, 2)", "[1,", "", "range(a,b,c)"]),
    st.integers(),
    st.text(max_size=10),
)
study_value = st.one_of(st.integers(-10, 2**40), st.floats(allow_nan=True), st.booleans(), st.text(max_size=10),
                        st.lists(st.text(max_size=8), max_size=3))
KEYS = ["connections.c1.source.rate_mbps", "run.seed", "run.duration_s", "links[0].rate_mbps", "x"]


@st.composite
def studies(draw) -> dict[str, Any]:
    st_: dict[str, Any] = {"scenario": "s.toml"}
    for k in draw(st.lists(st.sampled_from(["seed", "replications", "metrics", "confidence", "set", "until", "nope"]),
                           max_size=4)):
        if k == "set":
            st_[k] = {draw(st.sampled_from(KEYS)): draw(study_value)}
        elif k == "until":
            st_[k] = {"metric": draw(st.one_of(st.just("ports.S->h2.max_queue_cells"), study_value)),
                      "rel_half_width": draw(st.one_of(st.floats(0, 1), study_value)),
                      "max_replications": draw(st.one_of(st.integers(0, 10**7), study_value))}
        else:
            st_[k] = draw(study_value)
    if draw(st.booleans()):
        st_["grid"] = {draw(st.sampled_from(KEYS)): draw(axis_values)}
    return {"study": st_}


@FUZZ
@given(studies())
def test_fuzz_study_files(tmp_path_factory, study: dict[str, Any]) -> None:
    d = tmp_path_factory.mktemp("study")
    write_toml(d / "s.toml", minimal_scenario())
    try:
        (d / "study.toml").write_text(tomli_w.dumps(study), encoding="utf-8")
    except (TypeError, ValueError):
        return  # not representable in TOML
    try:
        spec = make_spec(d / "study.toml")
    except ScenarioError as e:
        _one_line(e)
        return
    n = spec.point_count()
    assert n <= MAX_POINTS
    assert n * (spec.max_replications if spec.adaptive else spec.replications) <= MAX_RUNS
    assert not any(a.key == "run.seed" for a in spec.axes) and "run.seed" not in spec.fixed


# ---------------------------------------------------------------------------------- queries

SQL_PARTS = ["SELECT", "*", "FROM", "runs", "ports", "count(*)", "read_csv('/etc/passwd')", "glob('/root/*')",
             "COPY", "TO", "'/tmp/x.csv'", "ATTACH", "'x.db'", "INSTALL httpfs", "LOAD", "EXPORT DATABASE", "SET",
             "PRAGMA", ";", "--", "/*", "*/", "WHERE", "1=1", "UNION", "(", ")", "'", '"', "read_parquet('runs.parquet')",
             "getenv('HOME')", "\u0661", "LIMIT", "1"]


@pytest.fixture(scope="module")
def small_study(tmp_path_factory) -> Path:
    from atmsim.cli import main

    d = tmp_path_factory.mktemp("q")
    f = write_toml(d / "s.toml", minimal_scenario())
    assert main(["sweep", str(f), "--out", str(d / "out"), "-q", "-j", "1", "-r", "1"]) == 0
    return d / "out"


@FUZZ
@given(st.one_of(st.lists(st.sampled_from(SQL_PARTS), max_size=8).map(" ".join), st.text(max_size=40)))
def test_fuzz_query_strings(small_study: Path, sql: str) -> None:
    from atmsim.study import query

    before = sorted(p.name for p in small_study.rglob("*"))
    try:
        df = query(small_study, sql)
    except ScenarioError as e:
        _one_line(e)
        assert "root:" not in str(e)
    else:
        assert "root:" not in df.to_string()
    assert sorted(p.name for p in small_study.rglob("*")) == before  # nothing written
    assert not Path("/tmp/x.csv").exists() and not Path("x.db").exists()
