"""The ``atmsim new`` and ``atmsim suite`` commands (issues 29 item 3 and 30): their options and
output; the work is in ``atmsim.topology`` and ``atmsim.abrsuite``. ``cli.py`` only adds them."""

from __future__ import annotations

import inspect
from typing import Any

import click

from . import topology

NEW_EXAMPLES = """\b
Examples:
  atmsim new parking-lot --switches 5 --distance wan > lot.toml
  atmsim new gfc2 --scheme erica+ --traffic tcp > gfc2.toml
  atmsim new dumbbell -n 8 --traffic mix > mix.toml && atmsim run mix.toml"""


def _command_line(kind: str, options: dict[str, Any]) -> str:
    """The ``atmsim new`` command that writes this scenario (its options as given)."""
    flags = {"n": "--switches", "n_upstream": "--switches", "rate_mbps": "--rate", "duration_s": "--duration",
             "buffer_cells": "--buffer"}
    parts = ["atmsim new", kind]
    for key, value in options.items():
        if value is not None:
            parts += [flags.get(key, "--" + key.replace("_", "-")), str(value)]
    return " ".join(parts)


def _header(kind: str, command: str, doc: dict[str, Any]) -> list[str]:
    text = inspect.getdoc(topology.KINDS[kind]) or ""
    lines = [f"Written by: {command}", ""]
    lines += text.splitlines()
    rates = topology.max_min(doc)
    if rates:
        lines += ["", "Max-min fair rates of the ABR connections, Mb/s (atmsim.topology.max_min: the water-filling",
                  "oracle over the links at the scheme's target utilization, sources active at the end of the run):"]
        lines += [f"  {name:<8} {rate:9.3f}" for name, rate in rates.items()]
    lines += ["", "Run it: atmsim run FILE.toml  (shorter: add --duration 0.2 --set run.warmup_s=0.1; keys: docs/scenarios.md)"]
    return lines


@click.command("new", epilog=NEW_EXAMPLES)
@click.argument("kind", type=click.Choice(list(topology.KINDS)))
@click.option("--switches", "-n", type=click.IntRange(min=1), default=None,
              help="Switches (parking-lot, chain, chain-transient: trunks) or connections (dumbbell, star).")
@click.option("--distance", type=click.Choice(list(topology.DISTANCES)), default=None,
              help="Link lengths: lan (1 km), wan (1000 km trunks), satellite (275 ms source hops).")
@click.option("--traffic", type=click.Choice(list(dict.fromkeys(topology.TRAFFIC + topology.MIXES))), default=None,
              help="What the connections carry (ABR unless ubr, ubr-tcp, cbr, video; mix cycles).")
@click.option("--scheme", type=click.Choice(list(topology.SCHEME_DEFAULTS)), default=None,
              help="The switches' ABR feedback scheme [erica].")
@click.option("--rate", "rate_mbps", type=float, default=None, metavar="MBPS", help="Trunk rate [155.52].")
@click.option("--duration", "duration_s", type=float, default=None, metavar="SECONDS", help="Simulated time.")
@click.option("--seed", type=int, default=None, help="run.seed [1].")
@click.option("--buffer", "buffer_cells", type=click.IntRange(min=1), default=None, metavar="CELLS",
              help="Switch buffer, cells [unbounded].")
def new_cmd(kind: str, switches: int | None, **options: Any) -> None:
    """Print a complete, commented scenario of network KIND to standard output.

    The same generators are in the API: atmsim.topology.parking_lot(...), gfc2(...), ...
    """
    fn = topology.KINDS[kind]
    params = inspect.signature(fn).parameters
    if switches is not None:
        first = next(iter(params))
        if first not in ("n", "n_upstream"):
            raise click.UsageError(f"--switches does not apply to {kind}")
        options[first] = switches
    for key in list(options):
        if options[key] is not None and key not in params:
            raise click.UsageError(f"--{key.removesuffix('_mbps').removesuffix('_s').replace('_', '-')} does not apply to {kind}")
    try:
        doc = topology.generate(kind, **options)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    click.echo(topology.to_toml(doc, _header(kind, _command_line(kind, options), doc)), nl=False)


SUITE_EXAMPLES = """\b
Examples:
  atmsim suite abr --quick --out results/abr-quick
  atmsim suite abr --schemes erica,eprca --configs parking-lot-wan --out results/abr-lot"""


@click.group("suite", epilog=SUITE_EXAMPLES)
def suite_group() -> None:
    """Run a suite of studies (``atmsim suite abr``)."""


@suite_group.command("abr", epilog=SUITE_EXAMPLES)
@click.option("--quick", is_flag=True, help="The short suite (LAN and WAN, persistent sources; within 3 minutes on 2 cores).")
@click.option("--out", type=click.Path(path_type=str), default="results/abr-suite", show_default=True,
              help="Output directory (scorecard.csv, runs.parquet, configs/, report.html).")
@click.option("--seed", type=int, default=1, show_default=True, help="Master seed: the same seed gives the same scorecard, bit for bit.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Runs in parallel [one per core].")
@click.option("--schemes", default=None, metavar="A,B", help="Only these schemes.")
@click.option("--configs", default=None, metavar="A,B", help="Only these configurations (names as in the scorecard).")
@click.option("--force", is_flag=True, help="Write into a non-empty directory atmsim did not write (its files are kept).")
@click.option("--quiet", "-q", is_flag=True, help="No per-run progress lines.")
def suite_abr_cmd(quick: bool, out: str, seed: int, jobs: int | None, schemes: str | None, configs: str | None,
                  force: bool, quiet: bool) -> None:
    """Every ABR switch scheme on every ATM Forum test configuration: a scorecard."""
    from . import abrsuite

    log = None if quiet else (lambda line: click.echo(line, err=True))
    result = abrsuite.run_suite(out, quick=quick, seed=seed, jobs=jobs, force=force, log=log,
                                schemes=schemes.split(",") if schemes else None,
                                configs=configs.split(",") if configs else None)
    click.echo(result.table())
    click.echo(f"wrote {result.out} ({result.wall_time_s:.1f} s)")
