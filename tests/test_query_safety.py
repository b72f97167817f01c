"""`atmsim results query` locked down (issue 31 item 2): the DuckDB connection sees only the
study's tables, statements other than one read-only query are refused before they run, and no
error message echoes the contents of a file. Each case is an attack the issue lists."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import atmsim
from atmsim.cli import main
from atmsim.errors import ScenarioError

from conftest import minimal_scenario, write_toml

SECRET = "s3cret-first-line:x:0:0"


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("query")
    scen = write_toml(base / "small.toml", minimal_scenario(0.01))
    out = base / "study"
    atmsim.sweep(scen, out, grid={"connections.c1.source.rate_mbps": [10, 20]}, replications=1, jobs=1)
    return out


@pytest.fixture(scope="module")
def secret(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A readable file outside the study whose contents must never show."""
    p = tmp_path_factory.mktemp("outside") / "secret.txt"
    p.write_text(f"{SECRET}\nsecond line\n")
    return p


def _digest(d: Path) -> dict[str, str]:
    return {str(p.relative_to(d)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(d.rglob("*")) if p.is_file()}


def _refused(study: Path, sql: str, capsys, *words: str) -> str:
    """``atmsim results query STUDY SQL`` gives one line on stderr, exit 2, nothing on stdout."""
    code = main(["results", "query", str(study), sql])
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert code == 2, (sql, captured.err, captured.out)
    assert len(err) == 1 and err[0].startswith("atmsim: error: "), (sql, captured.err)
    assert captured.out == "", sql
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    for w in words:
        assert w in err[0], (sql, err[0])
    return err[0]


def test_a_normal_query_still_works(study: Path, capsys) -> None:
    assert main(["results", "query", str(study), "SELECT count(*) AS n FROM runs", "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["n", "2"]
    q = 'WITH r AS (SELECT run_id FROM runs) SELECT count(DISTINCT run_id) AS n FROM ports JOIN r USING (run_id)'
    assert main(["results", "query", str(study), q, "--csv"]) == 0
    assert capsys.readouterr().out.splitlines() == ["n", "2"]
    for sql in ("DESCRIBE runs", "SHOW TABLES", "FROM runs SELECT status", "SELECT 1 AS one;"):
        assert main(["results", "query", str(study), sql]) == 0, sql
        capsys.readouterr()
    # the API says the same
    assert len(atmsim.results(study)) == 2
    assert list(atmsim.results(study, "SELECT status FROM runs")["status"]) == ["ok", "ok"]


@pytest.mark.parametrize("reader", ["read_csv('{f}')", "read_text('{f}')", "read_csv_auto('{f}', header=false)",
                                    "read_blob('{f}')", "'{f}'", "read_json('{f}')"])
def test_files_outside_the_study_cannot_be_read(study: Path, secret: Path, capsys, reader: str) -> None:
    line = _refused(study, f"SELECT * FROM {reader.format(f=secret)}", capsys)
    assert SECRET not in line and "second line" not in line


def test_etc_passwd_and_root_listing(study: Path, capsys) -> None:
    for sql in ("SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM glob('/root/*')", "SELECT * FROM glob('/*')"):
        line = _refused(study, sql, capsys)
        assert "root:" not in line


def test_study_files_other_than_its_tables_are_not_readable(study: Path, capsys) -> None:
    _refused(study, f"SELECT * FROM read_text('{study / 'study.json'}')", capsys)
    _refused(study, f"SELECT * FROM glob('{study.parent}/*')", capsys)


def test_copy_to_a_file_is_refused(study: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "bashrc"
    _refused(study, f"COPY (SELECT 'echo pwned' AS x) TO '{target}' (HEADER false)", capsys, "read-only")
    assert not target.exists()


def test_copy_over_the_study_is_refused_and_the_study_survives(study: Path, capsys) -> None:
    before = _digest(study)
    for sql in (f"COPY (SELECT 1 AS x) TO '{study / 'runs.parquet'}'",
                f"SELECT 1; COPY (SELECT 1 AS x) TO '{study / 'runs.parquet'}'",
                f"EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{study / 'runs.parquet'}'",
                "CREATE TABLE t AS SELECT 1", "DROP VIEW ports", "INSERT INTO pending_rows VALUES (1)"):
        _refused(study, sql, capsys)
    assert _digest(study) == before
    assert len(atmsim.results(study)) == 2


@pytest.mark.parametrize("sql", [
    "ATTACH '{tmp}/x.db' AS x", "ATTACH ':memory:' AS m", "EXPORT DATABASE '{tmp}/exported'",
    "INSTALL httpfs", "LOAD httpfs", "INSTALL spatial FROM community", "FORCE INSTALL httpfs",
    "SET enable_external_access = true", "RESET enable_external_access", "SET lock_configuration = false",
    "PRAGMA enable_profiling", "CALL pragma_version()", "CHECKPOINT", "USE memory", "VACUUM",
    "SELECT * FROM query('COPY (SELECT 1) TO ''{tmp}/q.csv''')",
])
def test_other_statements_are_refused(study: Path, tmp_path: Path, capsys, sql: str) -> None:
    _refused(study, sql.format(tmp=tmp_path), capsys)
    assert list(tmp_path.iterdir()) == []


def test_settings_are_locked_and_extensions_off(study: Path) -> None:
    from atmsim.study.store import connect

    con = connect(study)
    try:
        settings = dict(con.execute(
            "SELECT name, value FROM duckdb_settings() WHERE name IN ('enable_external_access', 'lock_configuration', "
            "'autoinstall_known_extensions', 'autoload_known_extensions', 'allow_community_extensions')"
        ).fetchall())
        assert settings == {"enable_external_access": "false", "lock_configuration": "true",
                            "autoinstall_known_extensions": "false", "autoload_known_extensions": "false",
                            "allow_community_extensions": "false"}
        with pytest.raises(Exception, match="locked"):
            con.execute("SET enable_external_access = true")
    finally:
        con.close()


@pytest.mark.parametrize("sql", ["", "   ", ";", "-- only a comment"])
def test_empty_query(study: Path, capsys, sql: str) -> None:
    _refused(study, sql, capsys, "SQL")


def test_api_refuses_the_same(study: Path, secret: Path) -> None:
    with pytest.raises(ScenarioError) as e:
        atmsim.results(study, f"SELECT * FROM read_csv('{secret}')")
    assert SECRET not in str(e.value)
    with pytest.raises(ScenarioError, match="read-only"):
        atmsim.results(study, f"COPY runs TO '{study / 'runs.parquet'}'")


def test_query_errors_are_one_line_without_the_sql_caret(study: Path, capsys) -> None:
    line = _refused(study, "SELECT nope FROM runs", capsys, "nope")
    assert "LINE 1" not in line and "^^^" not in line


def test_trace_error_does_not_echo_the_file(tmp_path: Path, secret: Path, capsys) -> None:
    """A trace file that is not a trace (say /etc/passwd) is refused with its line number, without
    the line's text."""
    doc = minimal_scenario(0.01)
    doc["traces"] = {"t": {"file": str(secret)}}
    scen = write_toml(tmp_path / "trace.toml", doc)
    assert main(["validate", str(scen)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "line 1" in err and str(secret) in err
    assert SECRET not in err and "s3cret" not in err
