"""The front end costs nothing per value (issue 27 item 5), and gives what it gave before:

- scenario files are read by the core's TOML parser into JSON text (``_core.toml_to_json``): the
  same document as ``tomllib``'s, keys in the same order, for every scenario file we ship and for
  the corners of TOML; what it does not reproduce exactly (dates, non-finite floats, deep nesting,
  TOML 1.1 syntax, bad TOML) it leaves to ``tomllib``, so errors are unchanged;
- series slices handed over as raw columns (``drain_series_buffers``) give the same Arrow tables,
  schema metadata included, as the lists did (``drain_series``);
- ``summary.json`` written by the core has the content the Python encoder wrote;
- numbers are checked once, as read and as overridden, with the errors of the whole-document walk.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import pyarrow as pa
import pytest

import atmsim
from atmsim import _core
from atmsim.errors import ScenarioError
from atmsim.result import SUMMARY_FILE, Result, SeriesSink, _arrow
from atmsim.scenario import document_json, load_scenario

from conftest import minimal_scenario

REPO = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((REPO / "scenarios").rglob("*.toml"))


def _ordered(value):
    """A document with the order of every table's keys made part of its value."""
    if isinstance(value, dict):
        return [(k, _ordered(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [_ordered(v) for v in value]
    return (type(value).__name__, value)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.relative_to(REPO / "scenarios").as_posix())
def test_fast_toml_is_tomllib_on_every_shipped_scenario(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    fast = _core.toml_to_json(text)
    assert fast is not None, "a shipped scenario should take the fast path"
    assert _ordered(json.loads(fast)) == _ordered(tomllib.loads(text))


SAME = [
    'a = "tab\\t quote\\" backslash\\\\ unicode \\u00e9 \\U0001F600 raw é"',
    "a = 'literal \\n stays'",
    'a = """\nmulti\\\n   line"""',
    "a = '''\nraw\nlines'''",
    "a = 0x1F\nb = 0o17\nc = 0b101\nd = 1_000\ne = -9223372036854775808\nf = +5",
    "a = 1e-7\nb = 6.02e23\nc = -0.0\nd = 1.5E+300\ne = 0.1\nf = 3_000.25",
    "a.b.c = 1\na.d = true\n[x]\ny = [1, [2, [3]], {z = 'q'}]",
    "[[t]]\nn = 1\n[[t]]\nn = 2\n[t.sub]\nk = 'v'",
    '"quoted key" = 1\n\'lit key\' = 2\n"" = 3',
    "z = 1\na = 2\nm = 3",  # file order, not sorted
    "a = []\nb = {}\nc = [[], {}]",
]


@pytest.mark.parametrize("text", SAME)
def test_fast_toml_equals_tomllib(text: str) -> None:
    fast = _core.toml_to_json(text)
    assert fast is not None
    assert _ordered(json.loads(fast)) == _ordered(tomllib.loads(text))


LEFT_TO_TOMLLIB = [
    "a = ",  # not TOML
    "a = 1\na = 2",  # a repeated key
    "a = inf",
    "a = -nan",
    "a = 1979-05-27T07:32:00Z",
    "a = 07:32:00",
    "a = 99999999999999999999",  # beyond 64 bits: tomllib reads it, our check refuses it
    "a = {\n b = 1 }",  # TOML 1.1: a newline in an inline table
    "a = { b = 1, }",  # TOML 1.1: a trailing comma in an inline table
    'a = "\\e"',  # TOML 1.1: the escape character
    'a = "\\x41"',  # TOML 1.1: \xHH
    "a = " + "[" * 32 + "1" + "]" * 32,  # nested 32 deep: _check_numbers' message
]


@pytest.mark.parametrize("text", LEFT_TO_TOMLLIB)
def test_what_the_fast_path_leaves_to_tomllib(text: str) -> None:
    assert _core.toml_to_json(text) is None


#: TOML texts, valid and not, around what TOML 1.0 allows (keys, tables defined twice, dotted
#: keys, inline tables, numbers, strings, control characters, line ends)
CORPUS = [
    "[a]\n[a]", "[a]\nb=1\n[a.b]\nc=1", "a = {b=1}\na.c = 2", "a = []\n[[a]]", "a = 01", "a = 1__0", "a . b = 1",
    "a = [1, 'a']", 'a = "\\uD800"', "a = 1.", "a = .5", "a = 1e", 'a = "x\ry"', 'a = "\x00"', "a = 0x", "a = +0x1",
    "a = -0o7", "a = 1_", "a = _1", "a = 1e1_0", "a = 1.5e+", "[a.b]\n[a]\nc=1", "[a]\nb.c=1\n[a.b]\nd=2",
    "a.b=1\n[a]\nc=2", "[a]\nx=1\n[b]\n[a.c]\ny=2", "a = true\nb = false\nc = TRUE", "a = 'x'\n'a' = 'y'",
    'a = """\\\n\n  x"""', "a = '''''x'''''", "\ufeffa = 1", "a = 1 # comment\n# c\n", "a = 1\r\nb = 2\r\n",
    "a = [\n1,\n2,\n]", "a = [1,,2]", "a = { }", "a = {a=1,a=2}", "[[a]]\n[a.b]\nc=1\n[[a]]",
    "a = 9223372036854775807", "a = -9223372036854775809", "a = 0.0\nb=-0.0\nc=+0.0", "a = 1E2\nb=1e-2",
    'key = "val" extra', "[a]b=1", "a=1 b=2", 'a = "\\t\\b\\f\\/"', "a = 'x\ty'", "[ a . b ]\nc = 1",
    '["a.b"]\nc=1', "a = [[1,2],[3]]", "3.14 = 1", "1 = 2\n2 = 3", "a = 1\n[a]", "a = 1 # \x01", 'a = "\x7f"',
    "a = '\x7f'", "# \x7f\na=1", "= 1", "[a] b", 'a = "\\U0011FFFF"', "a = -0x1", "a = +0o1", "a = -0b1",
    "a = 1_000.0_1", "a = 1e_1", "a = 0_1", "a = 00", "a = -01.5", "a = 1.5_", 'a = """a"""""', "a = '''a''''",
    "[a]\n[a.b]\n[a]", "[[a.b]]\n[a]\nc=1", "a = [{b=1}]\n[[a]]", "a.b = 1\na.b.c = 2", 'a="\\ "', 'a = "\\a"',
    "a = '\n'", 'a = "a\nb"', "a = 1\x00", "a=1\r", "\r\na=1", "[a]\r\n", "a = [1\n,2]", "'a\nb' = 1",
    "x = { a.b = 1 }", "x = { a.b = 1, a.c = 2 }", "x = { a = {b=1}, a.c = 2 }", "[x]\ny.z = 1\n[x.y]\nw=2",
    "a = 0.1e", "a = 1e+1_0", "a = 2e308", "a = 4.9e-324", "a = 1e-400",
]


@pytest.mark.parametrize("text", CORPUS)
def test_fast_toml_never_reads_what_tomllib_would_not(text: str) -> None:
    """The fast path refuses whatever tomllib refuses, and reads the same document otherwise (or
    leaves the text to tomllib)."""
    fast = _core.toml_to_json(text)
    try:
        ref = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        assert fast is None
        return
    if fast is not None:
        assert _ordered(json.loads(fast)) == _ordered(ref)


def test_errors_of_files_are_tomllib_s(tmp_path: Path) -> None:
    cases = {
        "bad.toml": ("a = ", "not valid TOML: "),
        "inf.toml": ("[run]\nduration_s = inf", "must be a finite number"),
        "big.toml": ("[run]\nseed = 99999999999999999999", "integer out of range"),
        "deep.toml": ("a = " + "[" * 40 + "1" + "]" * 40, "nested too deeply"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        with pytest.raises(ScenarioError, match=message) as e:
            load_scenario(tmp_path / name)
        assert e.value.file == str(tmp_path / name)
        if name == "bad.toml":
            try:
                tomllib.loads(text)
            except tomllib.TOMLDecodeError as t:
                assert e.value.message == f"not valid TOML: {t}"


def test_numbers_checked_once_with_the_same_errors(tmp_path: Path) -> None:
    demo = REPO / "scenarios" / "examples" / "demo.toml"
    with pytest.raises(ScenarioError) as e:
        load_scenario(demo, ["run.duration_s=inf"], validate=False)
    assert (e.value.file, e.value.path, e.value.message) == ("--set", "run.duration_s", "must be a finite number")
    with pytest.raises(ScenarioError) as e:
        load_scenario(demo, ["links[0].rate_mbps=[[nan]]"], validate=False)
    assert (e.value.file, e.value.path) == ("--set", "links[0].rate_mbps[0][0]")
    # a document changed after it was loaded is still checked (the encoder refuses the float)
    doc, prov = load_scenario(demo, validate=False)
    assert prov.numbers_checked
    doc["run"]["warmup_s"] = math.nan
    with pytest.raises(ScenarioError) as e:
        document_json(doc, prov)
    assert (e.value.file, e.value.path, e.value.message) == (str(demo), "run.warmup_s", "must be a finite number")


def _slices(text: str, buffers: bool) -> dict[str, pa.Table]:
    sim = _core.Simulation(text)
    sink = SeriesSink(None)
    while True:
        done = sim.advance(10**9, 500)
        if buffers:
            sink.add_buffers(sim.drain_series_buffers(), sim)
        else:
            sink.add(sim.drain_series())
        if done:
            return sink.close(sim.series_tables())


@pytest.mark.parametrize("scenario", ["examples/demo.toml", "examples/abr-two-way.toml", "seed000/wan.toml"])
def test_buffers_give_the_tables_the_lists_gave(scenario: str) -> None:
    """Every kind of column (floats, u32 and u64 counts, port and connection keys) in several
    slices: the Arrow tables are equal, schema and pandas' metadata included."""
    doc, prov = load_scenario(REPO / "scenarios" / scenario, {"run.duration_s": 0.3, "run.warmup_s": 0.0},
                              validate=False)
    text = document_json(doc, prov)
    lists, buffers = _slices(text, False), _slices(text, True)
    assert list(lists) == list(buffers) and lists
    kinds = set()
    for name in lists:
        assert buffers[name].schema.equals(lists[name].schema, check_metadata=True), name
        assert buffers[name].equals(lists[name]), name
        kinds |= {str(f.type) for f in lists[name].schema}
    assert {"double", "int64", "large_string"} <= kinds


def test_summary_file_written_by_the_core_has_the_same_content(tmp_path: Path) -> None:
    doc = minimal_scenario(0.05)
    memory = atmsim.run(doc)
    result = atmsim.run(doc, out=tmp_path / "out")
    text = (tmp_path / "out" / SUMMARY_FILE).read_text(encoding="utf-8")
    assert text.endswith("}\n") and text.startswith('{\n  "')
    on_disk = json.loads(text)
    for s in (on_disk, memory.summary):
        assert s.pop("wall_time_s") > 0
    assert on_disk == memory.summary
    # what the Python encoder wrote (json.dumps(indent=2, sort_keys=True)) reads back the same
    assert json.loads(json.dumps(memory.summary, indent=2, sort_keys=True)) == on_disk
    # the result reads the file when asked, and gives the same as Result.read
    assert result.summary["events"] == Result.read(tmp_path / "out").summary["events"] == memory.summary["events"]
