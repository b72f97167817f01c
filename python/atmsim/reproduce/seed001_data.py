"""Seed 001's published values as data: Tables 9-20 of its appendix (``data/seed001/``).

``load_tables()`` reads ``tables.toml`` (each table's source, columns, units and the seed's KB)
and the CSV of every table: numbers as printed (``None`` for the seed's "-"), with the seed
file's line of each row. ``seed_rows(path)`` parses the same tables out of the seed file itself
(the tab-separated rows above each 'Table N' caption), for the test that compares the two.

Also the pieces of the runs' layout that the other seed 001 modules share (this is the lowest of
them: ``seed001_data`` -> ``seed001_compare`` -> ``seed001_xtpx`` -> ``seed001_plots`` ->
``seed001``, each importing only those before it): the seed file's name ``SEED``, the scenario
file of a network and family (``scenario``), why one cannot run in this build (``missing``), the
networks' MTUs and a run's time limit.
"""

from __future__ import annotations

import csv
import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ScenarioError
from .experiment import scenarios_dir

DATA_DIR = Path(__file__).resolve().parent / "data" / "seed001"
TABLES = tuple(range(9, 21))

__all__ = ["DATA_DIR", "TABLES", "Table", "load_tables", "seed_rows", "figure28", "SEED", "MTU", "DURATION_S", "scenario", "missing"]


@dataclass(frozen=True)
class Table:
    number: int
    meta: dict[str, Any]
    #: column names (tables.toml ``columns``), then ``seed_line``
    columns: tuple[str, ...]
    #: one dict per row: column -> float or None ("-"), plus ``seed_line`` -> int
    rows: tuple[dict[str, Any], ...]

    @property
    def title(self) -> str:
        return str(self.meta["title"])

    @property
    def network(self) -> str:
        return str(self.meta["network"])


def _meta() -> dict[str, Any]:
    with open(DATA_DIR / "tables.toml", "rb") as f:
        return tomllib.load(f)


def load_tables() -> dict[int, Table]:
    """Every table, keyed by its number."""
    meta = _meta()
    out: dict[int, Table] = {}
    for n in TABLES:
        m = meta["table"][str(n)]
        with open(DATA_DIR / f"table{n:02d}.csv", newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            cols = tuple(reader.fieldnames or ())
            if list(cols) != [*m["columns"], "seed_line"]:
                raise ValueError(f"{DATA_DIR / f'table{n:02d}.csv'}: columns {cols} differ from tables.toml's {m['columns']}")
            rows = tuple(
                {**{c: (float(r[c]) if r[c] != "" else None) for c in m["columns"]}, "seed_line": int(r["seed_line"])}
                for r in reader
            )
        out[n] = Table(n, m, cols, rows)
    return out


def figure28() -> dict[str, Any]:
    """What section 9 states about Figure 28 (no table)."""
    return dict(_meta()["figure"]["28"])


def kb_bytes() -> int:
    return int(_meta()["kb_bytes"])


_CAPTION = re.compile(r"^(?:Table|TABLE) (\d+)\b")


def seed_rows(path: Path) -> dict[int, list[tuple[int, list[str]]]]:
    """The rows of Tables 9-20 in the seed file: ``{table: [(line, cells), ...]}``: every block of
    lines starting with a digit directly above a caption 'Table N' / 'TABLE N' (blank lines
    between rows allowed); a table printed over several pages has several captions."""
    lines = path.read_text(encoding="utf-8").split("\n")
    out: dict[int, list[tuple[int, list[str]]]] = {}
    for i, line in enumerate(lines):
        m = _CAPTION.match(line)
        if not m or int(m.group(1)) not in TABLES:
            continue
        block: list[tuple[int, list[str]]] = []
        j = i - 1
        while j >= 0 and (not lines[j].strip() or lines[j][:1].isdigit()):
            if lines[j].strip():
                block.append((j + 1, [c.strip() for c in lines[j].split("\t")]))
            j -= 1
        out.setdefault(int(m.group(1)), []).extend(reversed(block))
    return out


# ------------------------------------------------------------------------------------ the runs' layout

#: the seed file, under ../shared/seeds/
SEED = "001_08abd1994ada50f6.txt"
MTU = {"wan": 9188, "lan": 9180}
#: simulated time limit of a run: the run goes on after the workload is done (idle, cheap), so
#: the limit is generous; a workload that had not finished is marked in its rows
DURATION_S = {"wan": 5000.0, "lan": 5000.0}


def scenario(net: str, family: str) -> str:
    return f"seed001/{net}-{family}.toml"


@functools.lru_cache(maxsize=None)
def missing(net: str, family: str) -> str | None:
    """Why the family's scenario cannot run in this build (None: it can): the scenario file is
    absent, or it does not validate (e.g. the workload source or XTPX is not built yet)."""
    from ..scenario import load_scenario

    path = scenarios_dir() / scenario(net, family)
    if not path.exists():
        return f"scenarios/{scenario(net, family)} does not exist (XTPX scenario keys not available)"
    try:
        load_scenario(path)
    except ScenarioError as e:
        msg = str(e).replace(f"{path}: ", "")
        return f"scenarios/{scenario(net, family)} does not validate in this build: {msg}"
    return None
