"""The core JSON document of a scenario file, as `atmsim run` builds it (``make bench`` writes case
(f), seed 000's sat-sat scenario, with it for ``atmsim-bench``, which has no TOML reader).

    .venv/bin/python tools/bench_scenario_json.py SCENARIO.toml OUT.json [--duration S]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from atmsim.api import prepare
from atmsim.scenario import document_json


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario")
    ap.add_argument("out")
    ap.add_argument("--duration", type=float, default=None, help="run.duration_s (default: the file's)")
    a = ap.parse_args(argv)
    doc, prov = prepare(a.scenario, None, None, a.duration)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(document_json(doc, prov), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
