"""Command-line interface: ``atmsim run|validate|schema|plot|reproduce|map|sweep|results|report``.

Every problem with the input (scenario file, ``--set``, results directory) is reported as exactly
one line on stderr, ``atmsim: error: <file>: <key path>: <message>``, with exit code 2.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from .errors import AtmsimError, ScenarioError, SimulationError
from .logs import setup as setup_logging, verbosity_options
from .tables import video_table, workload_table
from .version import __version__

PROG = "atmsim"
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class _Interrupted(Exception):
    """KeyboardInterrupt inside a command, kept away from click's own handling."""


def _sigterm(signum: int, frame: Any) -> None:
    """SIGTERM is an interrupt like SIGINT: the same clean-up, message and exit code (recorded,
    so an interrupt raised where Python drops exceptions is raised again: ``atmsim.interrupts``)."""
    from . import interrupts

    interrupts.request(signum)
    interrupts.watchdog(PROG)
    raise KeyboardInterrupt()


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _error(message: str) -> None:
    click.echo(f"{PROG}: error: {_one_line(message)}", err=True)


# ---------------------------------------------------------------------------------- formatting


def _fmt(value: Any, spec: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and spec:
        return format(value, spec)
    return str(value)


def _rows(
    first: str, items: dict[str, Any], columns: Sequence[tuple[str, str, str | None]]
) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of a table with one row per item (sorted by name): ``columns`` are
    (header, key, format spec or None)."""
    headers = [first] + [h for h, _, _ in columns]
    rows = [
        [name] + [_fmt(item.get(k), f or "") for _, k, f in columns]
        for name, item in sorted(items.items())
    ]
    return headers, rows


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """At most 100 columns wide: headers wrap, then the columns go on in blocks (atmsim.tables)."""
    from .tables import render

    return render(headers, rows)


def _drops(entry: dict[str, Any]) -> int:
    if "cells_dropped" in entry:
        return int(entry["cells_dropped"] or 0)
    return int(sum((entry.get("drops") or {}).values()))


def _qos_met(met: dict[str, bool] | None) -> str:
    """``yes``, ``no:clr,cdv`` (the objectives missed) or ``-`` without requested QoS."""
    if not met:
        return "-"
    if met.get("all"):
        return "yes"
    missed = [k for k, ok in sorted(met.items()) if k != "all" and not ok]
    return "no:" + ",".join(missed)


def format_mapping(m: dict[str, Any]) -> str:
    """What ``atmsim map`` prints: the application, then PCR / SCR / MBS in both forms."""
    i = m["input"]
    headers = ["form", "PCR cells/s", "PCR Mb/s", "SCR cells/s", "SCR Mb/s", "MBS cells"]
    rows = []
    for form in ("plain", "aal5"):
        d = m[form]
        rows.append([
            form,
            _fmt(float(d["pcr_cells_per_s"]), ".1f"),
            _fmt(float(d["pcr_mbps"]), ".4f"),
            _fmt(float(d["scr_cells_per_s"]), ".1f"),
            _fmt(float(d["scr_mbps"]), ".4f"),
            _fmt(d["mbs_cells"]),
        ])
    return "\n".join([
        "traffic mapping (paper 001 section 6.1, Table 7)",
        f"application: max {i['max_mbps']:g} Mb/s, mean {i['mean_mbps']:g} Mb/s, burst {i['burst_bytes']} B; "
        f"TSDU {i['tsdu_bytes']} B + header {i['header_bytes']} B = {m['cells_per_tsdu']} cells per AAL5 frame",
        "",
        _table(headers, rows),
        "",
        "plain: PCR = max_R / 48, SCR = mean_R / 48, MBS = ceil(B / 48) (fluid; no segmentation overhead)",
        "aal5:  rates x cells per TSDU / TSDU bytes (header, 8-byte AAL5 trailer, padding); MBS = cells of B cut into TSDUs",
        "PCR and SCR in Mb/s are of 53-byte cells",
    ])


def _idle(port: dict[str, Any]) -> bool:
    """A port that transmitted no cell, dropped none and never queued one."""
    return not port.get("cells_transmitted") and not _drops(port) and not port.get("max_queue_cells")


def format_summary(summary: dict[str, Any], all_ports: bool = True) -> str:
    """The tables ``atmsim run`` prints: ports, connections, TCP connections, XTPX connections, call
    classes (each from its function below, left out when the summary has none), then a line of totals.

    With ``all_ports=False`` idle ports (no cell transmitted, none dropped, max queue 0) are left
    out of the port table, and a line under it says how many.

    ERICA / ERICA+ ports add z mean, fair share and ABR capacity; ABR connections add ACR final,
    ACR mean (Mb/s) and RM overhead (RM cells / cells sent). Connections with UPC add the cells
    tagged and discarded by it and CLR0 (CLR of the CLP=0 cells); CLR0 also appears when some
    connection's CLR0 differs from its CLR (CLP=1 cells were lost). SECBR appears when some
    connection has requested QoS or a severely errored block; CER and CMR (misinserted cells/s)
    when some connection had errored or misinserted cells; "QoS met" ("yes", or "no:" and the
    objectives missed) when some connection has requested QoS. The extra columns appear only when
    some entry has them ("-" for the others).
    """
    conns = summary.get("connections") or {}
    tables = [
        _port_table(summary.get("ports") or {}, all_ports),
        _connection_table(conns),
        _tcp_table(conns),
        _xtpx_table(conns),
        video_table(conns),
        workload_table(conns),
        _call_table(summary.get("calls") or {}),
        _totals_line(summary),
    ]
    return "\n\n".join(t for t in tables if t is not None)


def _port_table(ports: dict[str, Any], all_ports: bool) -> str | None:
    """The port table (ERICA columns when some port has them), or None without ports; idle ports
    left out unless ``all_ports``, with a line saying how many."""
    hidden = 0
    if not all_ports:
        shown = {n: p for n, p in ports.items() if not _idle(p)}
        hidden = len(ports) - len(shown)
        ports = shown
    if not ports and not hidden:
        return None
    erica = any("z_mean" in p or "fairshare_mbps" in p for p in ports.values())
    headers = ["port", "max queue", "mean queue", "utilization", "drops"]
    if erica:
        headers += ["z mean", "fair share Mb/s", "ABR cap Mb/s"]
    rows = []
    for name, p in sorted(ports.items()):
        row = [
            name,
            _fmt(p.get("max_queue_cells")),
            _fmt(p.get("mean_queue_cells"), ".1f"),
            _fmt(p.get("utilization"), ".3f"),
            _fmt(_drops(p)),
        ]
        if erica:
            row += [
                _fmt(p.get("z_mean"), ".3f"),
                _fmt(p.get("fairshare_mbps"), ".2f"),
                _fmt(p.get("abr_capacity_mbps"), ".2f"),
            ]
        rows.append(row)
    table = _table(headers, rows)
    if hidden:
        table += f"\n({hidden} idle port{'s' if hidden != 1 else ''} not shown; --all-ports shows them)"
    return table


def _has_abr(conns: dict[str, Any]) -> bool:
    return any("acr_final_mbps" in c for c in conns.values())


def _connection_table(conns: dict[str, Any]) -> str | None:
    """The connection table, with the UPC, CLR0, CER / CMR, SECBR, QoS and ABR columns when some
    connection has them; None without connections."""
    if not conns:
        return None
    abr = _has_abr(conns)
    upc = any("upc_cells" in c for c in conns.values())
    clr0 = upc or any(
        c.get("clr_clp0") is not None and c.get("clr_clp0") != c.get("clr") for c in conns.values()
    )
    qos = any("qos_met" in c for c in conns.values())
    secbr = qos or any(c.get("secbr") for c in conns.values())
    impaired = any(c.get("cells_errored") or c.get("cells_misinserted") for c in conns.values())
    headers = ["connection", "sent", "delivered", "dropped", "Mb/s", "CTD mean us", "CTD max us", "CDV p2p us", "CLR"]
    if upc:
        headers += ["UPC tagged", "UPC discarded"]
    if clr0:
        headers += ["CLR0"]
    if impaired:
        headers += ["CER", "CMR /s"]
    if secbr:
        headers += ["SECBR"]
    if qos:
        headers += ["QoS met"]
    if abr:
        headers += ["ACR final", "ACR mean", "RM overhead"]
    rows = []
    for name, c in sorted(conns.items()):
        row = [
            name,
            _fmt(c.get("cells_sent")),
            _fmt(c.get("cells_delivered")),
            _fmt(c.get("cells_dropped")),
            _fmt(c.get("throughput_mbps"), ".2f"),
            _fmt(c.get("ctd_mean_us"), ".1f"),
            _fmt(c.get("ctd_max_us"), ".1f"),
            _fmt(c.get("cdv_p2p_us"), ".1f"),
            _fmt(c.get("clr"), ".3g"),
        ]
        if upc:
            row += [_fmt(c.get("upc_tagged")), _fmt(c.get("upc_discarded"))]
        if clr0:
            row += [_fmt(c.get("clr_clp0"), ".3g")]
        if impaired:
            row += [_fmt(c.get("cer"), ".3g"), _fmt(c.get("cmr_per_s"), ".4g")]
        if secbr:
            row += [_fmt(c.get("secbr"), ".3g")]
        if qos:
            row += [_qos_met(c.get("qos_met"))]
        if abr:
            row += [
                _fmt(c.get("acr_final_mbps"), ".2f"),
                _fmt(c.get("acr_mean_mbps"), ".2f"),
                _fmt(c.get("rm_overhead"), ".4f"),
            ]
        rows.append(row)
    return _table(headers, rows)


def _tcp_table(conns: dict[str, Any]) -> str | None:
    """One row per connection with a TCP source (plus its source queue's maximum when some
    connection is ABR); None without one."""
    tcp = {n: c["tcp"] for n, c in conns.items() if c.get("tcp")}
    if not tcp:
        return None
    columns = [
        ("goodput Mb/s", "goodput_mbps", ".3f"),
        ("bytes", "bytes_delivered", None),
        ("segments", "segments_sent", None),
        ("retransmitted", "retransmitted_segments", None),
        ("timeouts", "timeouts", None),
        ("fast retx", "fast_retransmits", None),
        ("cwnd", "cwnd_bytes", None),
        ("max cwnd", "max_cwnd_bytes", None),
        ("srtt ms", "srtt_ms", ".0f"),
        ("done s", "completed_s", ".4f"),
    ]
    headers, rows = _rows("TCP connection", tcp, columns)
    if _has_abr(conns):
        headers.append("source queue max")
        for row in rows:
            row.append(_fmt(conns[row[0]].get("source_queue_max_cells")))
    return _table(headers, rows)


def _xtpx_table(conns: dict[str, Any]) -> str | None:
    """One row per XTPX connection (a bundle's members as NAME#K); None without one."""
    xtpx: dict[str, Any] = {}
    for n, c in conns.items():
        bundle = c.get("xtpx_bundle")
        if bundle:
            width = len(str(len(bundle) - 1))
            xtpx.update({f"{n}#{k:0{width}d}": x for k, x in enumerate(bundle)})
        elif c.get("xtpx"):
            xtpx[n] = c["xtpx"]
    if not xtpx:
        return None
    columns = [
        ("goodput Mb/s", "goodput_mbps", ".3f"),
        ("kB/s", "throughput_kBps", ".1f"),
        ("rate B/s", "rate_bytes_per_s", ".0f"),
        ("bytes", "bytes_delivered", None),
        ("packets", "packets_sent", None),
        ("retransmitted", "retransmitted_packets", None),
        ("timeouts", "timeouts", None),
        ("done s", "completed_s", ".4f"),
    ]
    return _table(*_rows("XTPX connection", xtpx, columns))


def _call_table(calls: dict[str, Any]) -> str | None:
    """One row per call class (connection admission); None without calls."""
    if not calls:
        return None
    columns = [
        ("offered", "offered", None),
        ("admitted", "admitted", None),
        ("blocked", "blocked", None),
        ("no slot", "blocked_no_slot", None),
        ("blocking", "blocking_probability", ".4f"),
        ("95% CI +-", "blocking_ci95", ".4f"),
        ("Erlang-B", "erlang_b", ".4f"),
        ("max active", "max_active", None),
        ("setup ms", "setup_delay_mean_ms", ".3f"),
    ]
    return _table(*_rows("call class", calls, columns))


def _totals_line(summary: dict[str, Any]) -> str | None:
    """Simulated time, events, wall time and events/s, as far as the summary has them."""
    tail = []
    if "sim_time_s" in summary:
        tail.append(f"simulated {summary['sim_time_s']:.6g} s")
    if "events" in summary:
        tail.append(f"{summary['events']} events")
    wall = summary.get("wall_time_s")
    if wall:
        tail.append(f"wall {wall:.3f} s")
        if summary.get("events"):
            tail.append(f"{summary['events'] / wall:,.0f} events/s")
    return ", ".join(tail) if tail else None


def format_series_schema(schema: Mapping[str, Any]) -> str:
    """The series a run can write (``<series>.parquet``) and their columns as the core declares
    them: one block per series, one line per column with its unit and doc."""
    parts = []
    for name, table in schema.items():
        rows = [[c.name, c.unit or "-", c.kind, c.doc] for c in table.columns]
        widths = [max(len(r[i]) for r in rows + [["column", "unit", "kind", ""]]) for i in range(3)]
        lines = [f"{name}: {table.doc}" + ("" if table.always else " (when the run has any)")]
        for r in rows:
            lines.append("  " + "  ".join(c.ljust(w) for c, w in zip(r[:3], widths)) + "  " + r[3])
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


class _Progress:
    """tqdm on stderr: simulated seconds and events/s; appears only after ~2 s of wall time."""

    def __init__(self, enabled: bool) -> None:
        self.bar: Any = None
        self.enabled = enabled
        self.start = time.perf_counter()

    def __call__(self, sim_time_s: float, end_time_s: float, events: int) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(
                total=round(float(end_time_s), 6),
                unit="s",
                file=sys.stderr,
                delay=2,
                leave=False,
                dynamic_ncols=True,
                bar_format="{l_bar}{bar}| {n:.3f}/{total:.3f} s simulated [{elapsed}<{remaining}{postfix}]",
            )
        rate = events / max(time.perf_counter() - self.start, 1e-9)
        self.bar.set_postfix_str(f"{rate:,.0f} events/s", refresh=False)
        self.bar.update(round(float(sim_time_s), 6) - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


# ---------------------------------------------------------------------------------- commands

_set_option = click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a scenario value, e.g. run.duration_s=2 or connections.c1.source.rate_mbps=50 "
    "(VALUE is read as TOML, else taken as a string). Repeatable.",
)


_force_option = click.option(
    "--force",
    is_flag=True,
    help="Write into an output directory that holds other files (not atmsim's marker "
    ".atmsim-output.json): beside them, never replacing a file atmsim did not write.",
)


class _Group(click.Group):
    """A KeyboardInterrupt anywhere inside a command (its lazy imports of pandas and pyarrow
    included) becomes ``_Interrupted``: click would print a blank line before re-raising it, and
    the CLI's message is to be the one line on stderr."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise _Interrupted() from None


EXAMPLES = """\
Examples (from the repository's top directory):
  atmsim run scenarios/examples/demo.toml --out results/demo
  atmsim run scenarios/examples/demo.toml --set run.duration_s=0.2 --seed 7
  atmsim validate scenarios/examples/demo.toml
  atmsim plot results/demo
  atmsim reproduce --list"""


def short_usage() -> str:
    """What ``atmsim`` alone prints: the usage line, the commands, a few examples."""
    lines = [f"Usage: {PROG} [OPTIONS] COMMAND [ARGS]...", "", "  atmsim: cell-level ATM network simulator.", "", "Commands:"]
    width = max(len(n) for n in cli.commands)
    for name, cmd in cli.commands.items():
        lines.append(f"  {name.ljust(width)}  {cmd.get_short_help_str(limit=76)}")
    lines += ["", EXAMPLES, "", f"'{PROG} COMMAND --help' shows a command's options and examples; '{PROG} --help' all of this."]
    return "\n".join(lines)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]}, epilog="\b\n" + EXAMPLES)
@click.version_option(__version__, "--version", "-V", prog_name=PROG)
def cli() -> None:
    """atmsim: cell-level ATM network simulator.

    Scenario files are TOML (docs/scenarios.md; 'atmsim schema' prints every key). SIGINT or
    SIGTERM stops a command without writing any output (exit code 130). -v shows more on stderr,
    -q only warnings and errors (before or after the command); 'atmsim completion SHELL' prints
    a completion script for bash, zsh or fish.
    """


@cli.command("run")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@_set_option
@click.option("--seed", type=int, default=None, help="Master random seed (sets run.seed).")
@click.option("--duration", type=float, default=None, metavar="SECONDS", help="Simulated time (sets run.duration_s).")
@click.option("--out", type=click.Path(path_type=str), default=None, help="Output directory [results/<file stem>].")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary table.")
@click.option("--all-ports", is_flag=True, help="Show idle ports in the table too (no cell sent or dropped, max queue 0).")
@_force_option
def run_cmd(
    file: str, overrides: tuple[str, ...], seed: int | None, duration: float | None, out: str | None, quiet: bool,
    all_ports: bool, force: bool,
) -> None:
    """Run the scenario FILE and write summary.json and Parquet series to --out.

    --out must not exist, be empty, or hold an earlier 'atmsim run' output (its marker file
    .atmsim-output.json); anything else is refused unless --force.

    \b
    Example:
      atmsim run scenarios/examples/demo.toml --out results/demo
      atmsim run scenarios/examples/demo.toml --set run.duration_s=0.2 --seed 7 --all-ports

    It then prints tables (statistics cover the time after run.warmup_s). Ports are NODE->NEIGHBOUR,
    the output port of NODE towards NEIGHBOUR; idle ones are hidden unless --all-ports.

    \b
    Ports:
      max queue      largest queue, cells (exact)
      mean queue     time-average queue, cells
      utilization    fraction of the link's cell slots used (0..1)
      drops          cells dropped at the port, all reasons (summary.json: drops by reason)
      z mean, fair share Mb/s, ABR cap Mb/s   ERICA / ERICA+ ports only: mean load factor,
                     fair share and ABR capacity over the averaging intervals

    \b
    Connections:
      sent, delivered, dropped   cells (created after the warm-up; the rest are in flight)
      Mb/s           throughput of delivered cells, 48 payload bytes per cell
      CTD mean us, CTD max us    cell transfer delay, source to destination, microseconds
      CDV p2p us     peak-to-peak cell delay variation (max - min CTD)
      CLR            cell loss ratio, dropped / (delivered + dropped)
      UPC tagged, UPC discarded  cells tagged / discarded by policing (connections with upc)
      CLR0           CLR of the CLP=0 cells
      CER, CMR /s    cell error ratio; misinserted cells per second
      SECBR          severely errored cell block ratio
      QoS met        yes, or no: and the objectives missed (connections with qos)
      ACR final, ACR mean, RM overhead   ABR only: allowed cell rate (Mb/s), RM cells per cell

    The extra columns appear only when some connection has them ("-" for the others). TCP
    connections and call classes get tables of their own (docs/tcp.md, docs/contracts.md).
    """
    from .api import prepare, run_document

    out_dir = Path(out) if out else Path("results") / Path(file).stem
    doc, prov = prepare(file, list(overrides), seed, duration)
    progress = _Progress(enabled=not quiet and sys.stderr.isatty())
    try:
        result = run_document(doc, prov, progress=progress, out=out_dir, force=force)  # series streamed to out_dir
    except KeyboardInterrupt:
        progress.close()
        raise _Interrupted() from None
    progress.close()
    if not quiet:
        click.echo(format_summary(result.summary, all_ports=all_ports))
        click.echo()
    click.echo(f"wrote {out_dir}")


@cli.command("validate")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@_set_option
def validate_cmd(file: str, overrides: tuple[str, ...]) -> None:
    """Check the scenario FILE (and overrides) without running it.

    \b
    Example:
      atmsim validate scenarios/examples/demo.toml
      atmsim validate scenarios/examples/demo.toml --set 'links[3].rate_mbps=100'
    """
    from .scenario import load_scenario

    doc, _ = load_scenario(file, list(overrides))

    def count(key: str) -> int:
        v = doc.get(key)
        return len(v) if isinstance(v, list) else 0

    click.echo(
        f"{file}: ok ({count('nodes')} nodes, {count('links')} links, {count('connections')} connections)"
    )


@cli.command("schema")
@click.option("--series", "series", is_flag=True, help="Print the columns of the result series instead (unit, doc).")
def schema_cmd(series: bool) -> None:
    """Print the JSON Schema of scenario files (--series: the declared columns of the series).

    \b
    Example:
      atmsim schema > scenario.schema.json
      atmsim schema --series
    """
    if series:
        from .result import series_schema

        click.echo(format_series_schema(series_schema()))
        return
    from .scenario import schema

    click.echo(json.dumps(schema(), indent=2))


@cli.command("plot")
@click.argument("directory", type=click.Path(path_type=str))
@click.option("--ports", "ports", default=None, metavar="PATTERNS",
              help="Only these ports: names or shell patterns, comma-separated, e.g. 'A->*,B->C' "
                   "[every port that sent, dropped or queued a cell].")
@click.option("--connections", "connections", default=None, metavar="PATTERNS",
              help="Only these connections: names or shell patterns, comma-separated, e.g. 'tcp*' [all].")
@click.option("--top", type=click.IntRange(min=1), default=None, metavar="N",
              help="Only the N ports and the N connections ranked highest by --by.")
@click.option("--by", type=click.Choice(["utilization", "loss"]), default="utilization", show_default=True,
              help="What --top ranks by: utilization (ports; throughput for connections) or loss (cells dropped).")
@click.option("--legend", type=click.Choice(["auto", "outside", "inside", "none"]), default="auto", show_default=True,
              help="Where the legend goes; auto: inside up to 8 lines, else outside to the right in columns.")
@_force_option
def plot_cmd(
    directory: str, ports: str | None, connections: str | None, top: int | None, by: str, legend: str, force: bool,
) -> None:
    """Write PNG plots of the results in DIRECTORY into it.

    DIRECTORY is what 'atmsim run --out' wrote (with its marker file .atmsim-output.json; a
    directory without one is refused unless --force). A PNG atmsim did not write is never
    replaced. With many ports or connections, pick some (--ports, --connections) or the busiest
    (--top N); their lines get distinct colours and line styles, the legend goes outside.

    \b
    Example:
      atmsim run scenarios/examples/demo.toml --out results/demo --quiet
      atmsim plot results/demo
      atmsim plot results/demo --top 2 --by loss --legend outside
      atmsim plot results/demo --ports 'A->*' --connections 'vbr1,ubr1'
    """
    from .plots import Selection, plot_all
    from .result import Result

    def patterns(text: str | None) -> tuple[str, ...]:
        return tuple(p.strip() for p in (text or "").split(",") if p.strip())

    select = Selection(ports=patterns(ports), connections=patterns(connections), top=top, by=by, legend=legend)
    result = Result.read(directory)
    try:
        paths = plot_all(result, directory, force=force, select=select)
    except OSError as e:
        raise ScenarioError(directory, "", f"cannot write the plots: {e.strerror or e}") from None
    for path in paths:
        click.echo(str(path))


@cli.command("trace")
@click.argument("directory", type=click.Path(path_type=str))
@click.option("--connection", "-c", "connections", multiple=True, metavar="NAME", help="Only this connection's rows (both directions); repeatable.")
@click.option("--kind", "-k", "kinds", multiple=True, metavar="KIND", help="Only this event kind (docs/tracing.md); repeatable.")
@click.option("--from", "from_s", type=float, default=None, metavar="SECONDS", help="Only events at or after this time.")
@click.option("--to", "to_s", type=float, default=None, metavar="SECONDS", help="Only events before this time.")
@click.option("--pcap", type=click.Path(path_type=str), default=None, metavar="FILE",
              help="Write the selected AAL5 frames (frame_sent rows) as a pcap file for Wireshark instead of printing.")
@click.option("--epoch", default=None, metavar="TIME",
              help="With --pcap: the capture's time of simulated time 0, an ISO 8601 date/time (UTC unless it "
                   "gives an offset) or seconds since 1970 [2000-01-01T00:00:00Z].")
def trace_cmd(directory: str, connections: tuple[str, ...], kinds: tuple[str, ...], from_s: float | None,
              to_s: float | None, pcap: str | None, epoch: str | None) -> None:
    """Print the trace (trace.parquet) of the run in DIRECTORY as aligned text, sorted by time.

    The run must have had run.trace in its scenario (docs/tracing.md). With --pcap, write the
    frames as a capture (LINKTYPE_SUNATM: VPI/VCI, LLC/SNAP, IPv4, TCP/UDP) instead.

    \b
    Example:
      atmsim run scenarios/examples/demo.toml --out results/demo --quiet --set 'run.trace.connections=["vbr1"]' --set run.trace.to_s=0.01
      atmsim trace results/demo --kind drop | less
    """
    from .tracing import run_trace_command

    try:
        for line in run_trace_command(directory, list(connections), list(kinds), from_s, to_s, pcap, epoch):
            click.echo(line)
    except BrokenPipeError:  # `| head`: click would turn it into exit 1
        _reader_gone()


@cli.command("reproduce")
@click.argument("experiment", required=False)
@click.option("--quick", is_flag=True, help="The shorter variant (paper003: Nrm = 8, 32, 256 only).")
@click.option("--out", type=click.Path(path_type=str), default=None,
              help="Output directory [results/reproduce/<experiment>; for 'all': results/reproduce].")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Runs in parallel on local processes [one per core].")
@click.option("--dask", default=None, metavar="ADDRESS|local", help="Run on a Dask scheduler (tcp://HOST:PORT) or a local Dask cluster.")
@click.option("--list", "list_", is_flag=True, help="List the experiments and exit.")
@click.option("--quiet", "-q", is_flag=True, help="No per-run progress lines and no table.")
@_force_option
def reproduce_cmd(
    experiment: str | None, quick: bool, out: str | None, jobs: int | None, dask: str | None, list_: bool, quiet: bool,
    force: bool,
) -> None:
    """Reproduce an experiment of a source paper: run it, compare with the published values, plot.

    EXPERIMENT is paper000 ... paper004 (the papers in ../shared/seeds/; the older names
    seed000 ... seed004 are accepted too) or 'all'.

    Writes report.md, comparison.csv, plots/ and runs/ into --out, with every run stored there as
    a study (started again, it runs only what it does not have); an earlier complete report there
    is replaced only when the new one is complete. EXPERIMENT 'all' runs every experiment into
    --out/NAME and writes the index page --out/index.html (published against ours, each
    qualitative claim marked held or not). --out must not exist, be empty, or hold an earlier
    reproduction of the same experiment (atmsim's marker file); anything else is refused unless
    --force, and a file atmsim did not write is never replaced.

    \b
    Example:
      atmsim reproduce --list
      atmsim reproduce paper003 --quick --out results/paper003
      atmsim reproduce all --quick
    """
    _needs("study", "atmsim reproduce")
    from . import reproduce as rep

    if list_:
        for name in rep.experiment_names():
            title = rep.get_experiment(name).title
            public = rep.public_name(name)
            click.echo(f"{public}: {title.removeprefix(public + ': ')}")
        return
    if not experiment:
        raise click.UsageError(f"missing EXPERIMENT (one of: {', '.join(rep.public_names())}, all)")
    import logging

    log = logging.getLogger("atmsim.reproduce").info  # -q / --quiet: WARNING and above only
    from .study.runner import interrupted_line

    resumes = "the same command reuses them; no report written"
    if experiment == "all":
        try:
            page = rep.reproduce_all(quick=quick, out=out, jobs=jobs, dask=dask, log=log, force=force)
        except KeyboardInterrupt:
            click.echo(interrupted_line(PROG, resumes), err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except OSError as e:
            raise ScenarioError(out or "results/reproduce", "", f"cannot write results: {e.strerror or e}") from None
        click.echo(f"wrote {page}")
        return
    try:
        out = out or str(rep.default_out(experiment))  # named as typed: results/reproduce/paper003
        report = rep.reproduce(experiment, quick=quick, out=out, jobs=jobs, log=log, dask=dask, force=force)
    except KeyboardInterrupt:
        click.echo(interrupted_line(PROG, resumes), err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    except OSError as e:
        target = out or str(rep.default_out(experiment))
        raise ScenarioError(target, "", f"cannot write results: {e.strerror or e}") from None
    if not quiet:
        click.echo(report.table())
        click.echo()
    click.echo(f"wrote {report.out} ({report.wall_time_s:.1f} s)")


@cli.command("report")
@click.argument("directory", type=click.Path(path_type=str))
@click.option("--out", type=click.Path(dir_okay=False, path_type=str), default=None, help="The HTML file [DIRECTORY/report.html].")
def report_cmd(directory: str, out: str | None) -> None:
    """Write an HTML report of DIRECTORY: a run ('atmsim run --out'), a study ('atmsim sweep
    --out'), a reproduction, or the index of 'atmsim reproduce all'.

    One self-contained file (plotly embedded, opens offline): summary tables, interactive time
    series, sweep curves with confidence bands, published-vs-ours tables.

    \b
    Example:
      atmsim report results/demo
      atmsim report results/sweep/demo --out demo-sweep.html
    """
    _needs("report", "atmsim report")
    from .report import kind_of, report

    if Path(directory).is_dir() and kind_of(Path(directory)) != "run":
        _needs("study", "a report of a study or reproduction")
    try:
        path = report(directory, out)
    except OSError as e:
        raise ScenarioError(out or directory, "", f"cannot write the report: {e.strerror or e}") from None
    click.echo(f"wrote {path}")


def _needs(extra: str, command: str) -> None:
    """One line naming the extra to install when ``command`` cannot run without it (exit 2)."""
    from .extras import require

    require(extra, command)


def _key_values(items: Sequence[str], option: str) -> dict[str, Any]:
    from .study.spec import parse_axis_option

    out: dict[str, Any] = {}
    for text in items:
        key, values = parse_axis_option(text, option)
        out[key] = values
    return out


def _parse_until(text: str | None) -> tuple[str, float] | None:
    if not text:
        return None
    metric, sep, x = text.rpartition("<")
    try:
        value = float(x)
    except ValueError:
        value = -1.0
    if not sep or not metric.strip() or not value > 0:
        raise ScenarioError("--until", text, "expected METRIC<X with X > 0, e.g. 'connections.c1.throughput_mbps<0.05'")
    return metric.strip(), value


@cli.command("sweep")
@click.argument("file", type=click.Path(dir_okay=False, path_type=str))
@click.option("--grid", "grid", multiple=True, metavar="KEY=VALUES",
              help="An axis crossed with the others: VALUES is [a, b, ...], range(START, STOP, STEP), "
                   "linspace(START, STOP, N) or geom(START, STOP, FACTOR). Repeatable.")
@click.option("--zip", "zip_", multiple=True, metavar="KEY=VALUES",
              help="An axis zipped with the other --zip axes (equal lengths), then crossed with --grid. Repeatable.")
@_set_option
@click.option("--replications", "-r", type=int, default=None, help="Runs per point on independent seeds [3].")
@click.option("--seed", type=int, default=None, help="Master seed: replication r gets a seed derived from (seed, r) [1].")
@click.option("--metric", "-m", "metrics", multiple=True, metavar="KEY.PATH",
              help="A summary key path to report with its confidence interval, e.g. 'ports.A->B.max_queue_cells' "
                   "(quoted: '>' is a shell redirection), or an aggregate over every connection, port or call "
                   "class: sum, mean, max, min or jain (fairness index) of SECTION.*.KEY, e.g. "
                   "'sum(connections.*.user_throughput_mbps)'. Repeatable.")
@click.option("--confidence", type=float, default=None, help="Confidence level of the intervals [0.95].")
@click.option("--until", "until", default=None, metavar="METRIC<X",
              help="Add replications to a point until the relative half-width of METRIC is below X (needs --max-replications).")
@click.option("--max-replications", type=int, default=None, help="Cap on the replications per point with --until.")
@click.option("--out", type=click.Path(path_type=str), default=None, help="Results directory [results/sweep/<file stem>].")
@click.option("--jobs", "-j", type=int, default=None, help="Local worker processes [one per core].")
@click.option("--dask", default=None, metavar="ADDRESS|local", help="Run on a Dask scheduler (tcp://HOST:PORT) or a local Dask cluster.")
@click.option("--retry-failed", is_flag=True, help="Run the runs stored as failed again.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no table.")
@_force_option
def sweep_cmd(
    file: str, grid: tuple[str, ...], zip_: tuple[str, ...], overrides: tuple[str, ...], replications: int | None,
    seed: int | None, metrics: tuple[str, ...], confidence: float | None, until: str | None,
    max_replications: int | None, out: str | None, jobs: int | None, dask: str | None, retry_failed: bool, quiet: bool,
    force: bool,
) -> None:
    """Run a study: FILE (a study file with a [study] table, or a scenario) over a grid of --set
    key paths, each point replicated on independent seeds; results stored run by run in --out.

    A study started again in the same --out skips the runs it already has; --out must not
    exist, be empty, or hold this study (atmsim's marker file), else it is refused unless
    --force (a file atmsim did not write is never replaced). The run table holds
    one row per run (parameters set.KEY, seed, replication, status, every summary scalar); query
    it with 'atmsim results query', draw it with 'atmsim report'. See docs/study.md.

    \b
    Example:
      atmsim sweep scenarios/examples/demo.toml --grid 'connections.vbr1.source.peak_mbps=[50,80,100]' \\
        -r 5 -m 'ports.A->B.max_queue_cells' --set run.duration_s=0.5 --out results/sweep/demo
      atmsim sweep studies/demo-peak.toml --dask local
    """
    _needs("study", "atmsim sweep")
    from .scenario import override_items
    from .study import sweep
    from .study.stats import point_table  # noqa: F401 - loads scipy before the runs start

    fixed = {key: value for _, key, value in override_items(list(overrides), "--set")}
    try:
        res = sweep(
            file, out, grid=_key_values(grid, "--grid"), zip=_key_values(zip_, "--zip"), set=fixed,
            replications=replications, seed=seed, metrics=list(metrics), confidence=confidence,
            until=_parse_until(until), max_replications=max_replications, jobs=jobs, dask=dask,
            retry_failed=retry_failed, progress=not quiet and sys.stderr.isatty(), force=force,
        )
    except KeyboardInterrupt:
        # unlike a run, a study keeps what it finished: say so, and how to go on
        from .study.runner import interrupted_line

        click.echo(interrupted_line(PROG, "the same command resumes"), err=True)
        raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
    except OSError as e:
        raise ScenarioError(out or "--out", "", f"cannot write results: {e.strerror or e}") from None
    if not quiet and not res.points.empty:
        from .tables import frame

        points = res.points.drop(columns=["point"]).rename(columns=lambda c: c.removeprefix("set."))
        click.echo(frame(points, wrap={list(points.columns).index("metric"): 24}))
        click.echo()
    click.echo(f"wrote {res.out}: {len(res.runs)} runs ({res.ran} run now, {res.skipped} already stored, {res.failed} failed)")


@cli.group("results")
def results_group() -> None:
    """Query a study's results directory with SQL (DuckDB).

    \b
    Example:
      atmsim results query results/sweep/demo 'SELECT point, avg("ports.A->B.max_queue_cells") FROM runs GROUP BY point'
    """


@results_group.command("query")
@click.argument("directory", type=click.Path(path_type=str))
@click.argument("sql")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV instead of a table.")
def results_query_cmd(directory: str, sql: str, as_csv: bool) -> None:
    """Run SQL over the study in DIRECTORY: the view 'runs' (one row per run) and one view per
    series (ports, connections, abr_sources, abr_ports, tcp; with a run_id column).

    SQL is one read-only query (SELECT, WITH ... SELECT, DESCRIBE, SHOW); anything else (COPY,
    ATTACH, INSTALL, SET, several statements) is refused, and the query reads no file outside
    the study's tables (docs/study.md).

    \b
    Example:
      atmsim results query results/sweep/demo "SELECT status, count(*) FROM runs GROUP BY status"
      atmsim results query results/sweep/demo "SELECT run_id, max(queue_cells) FROM ports GROUP BY run_id" --csv
    """
    _needs("study", "atmsim results")
    from .study import query

    result = query(directory, sql)
    if as_csv:
        click.echo(result.to_csv(index=False), nl=False)
    else:
        from .tables import frame

        # at most 4 blocks of columns that fit 100 characters; --csv has them all
        click.echo(frame(result, max_blocks=4))


@cli.command("completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion_cmd(shell: str) -> None:
    """Print the shell completion script for SHELL (click's own).

    \b
    Example:
      atmsim completion zsh > ~/.atmsim-complete.zsh    # and 'source ~/.atmsim-complete.zsh' in ~/.zshrc
      eval "$(atmsim completion bash)"                  # in ~/.bashrc
      mkdir -p ~/.config/fish/completions && atmsim completion fish > ~/.config/fish/completions/atmsim.fish
    """
    from click.shell_completion import get_completion_class

    cls = get_completion_class(shell)
    assert cls is not None  # the three choices are click's
    click.echo(cls(cli, {}, PROG, f"_{PROG.upper()}_COMPLETE").source())


@cli.command("map")
@click.option("--max-mbps", type=float, required=True, help="Maximum rate of user data max_R, Mb/s (> 0).")
@click.option("--mean-mbps", type=float, required=True, help="Mean rate of user data mean_R, Mb/s (0 < mean <= max).")
@click.option("--burst-bytes", type=int, required=True, help="Burst B of user data, bytes (>= 0).")
@click.option("--tsdu-bytes", type=int, required=True, help="User bytes per TSDU, each one AAL5 frame (>= 1).")
@click.option("--header", default="none", show_default=True, metavar="tcp|udp|none|BYTES",
              help="Encapsulation bytes added to each TSDU before AAL5: tcp = TCP 20 + IP 20 + LLC/SNAP 8 "
                   "= 48, udp = UDP 8 + IP 20 + LLC/SNAP 8 = 36, none = 0, or a number of bytes.")
@click.option("--json", "as_json", is_flag=True, help="Print the mapping as JSON.")
def map_cmd(max_mbps: float, mean_mbps: float, burst_bytes: int, tsdu_bytes: int, header: str, as_json: bool) -> None:
    """Map application traffic to PCR / SCR / MBS (paper 001 section 6.1, Table 7).

    Prints the plain form (PCR = max_R / cell size, 48 payload bytes per cell, no overhead) and
    the AAL5 form (each TSDU plus header is one AAL5 frame with its trailer and padding).

    \b
    Example:
      atmsim map --max-mbps 10 --mean-mbps 2 --burst-bytes 10000 --tsdu-bytes 512 --header tcp
    """
    from .mapping import map_traffic

    names = {"max_mbps": "--max-mbps", "mean_mbps": "--mean-mbps", "burst_bytes": "--burst-bytes",
             "tsdu_bytes": "--tsdu-bytes", "header": "--header"}
    m = map_traffic(max_mbps, mean_mbps, burst_bytes, tsdu_bytes, header, names=names)
    if as_json:
        click.echo(json.dumps(m, indent=2))
    else:
        click.echo(format_mapping(m))


verbosity_options(cli)  # -v / -q on the group and every command (atmsim.logs)

# ---------------------------------------------------------------------------------- entry point


def _usage_hint(e: click.UsageError) -> str:
    """The usage line of the command a usage error is about, and where its help is."""
    ctx = e.ctx
    if ctx is None:
        return ""
    pieces = " ".join(ctx.command.collect_usage_pieces(ctx))
    return f" (usage: {ctx.command_path} {pieces}; '{ctx.command_path} --help' for more)"


from .cli_abr import new_cmd, suite_group  # noqa: E402 - `atmsim new`, `atmsim suite` (issues 29, 30)

cli.add_command(new_cmd)
cli.add_command(suite_group)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``atmsim`` command; returns the exit code.

    SIGTERM is handled like SIGINT (in the main thread, unless it is ignored): the command stops,
    writes no output and leaves no temporary directory, prints the interrupt line, exit code 130.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if not args and not os.environ.get(f"_{PROG.upper()}_COMPLETE"):
        # (click's shell completion calls the command with no arguments and its variable set)
        # as click does for a group without a command (exit code 2, on stderr), but short
        click.echo(short_usage(), err=True)
        return EXIT_BAD_INPUT
    previous_term: Any = None
    if hasattr(signal, "SIGTERM") and threading.current_thread() is threading.main_thread():
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            previous_term = signal.signal(signal.SIGTERM, _sigterm)
    from . import interrupts

    interrupts.clear()
    try:
        return _main(args)
    finally:
        if previous_term is not None:
            signal.signal(signal.SIGTERM, previous_term)
        interrupts.clear()


def _main(args: list[str]) -> int:
    setup_logging()
    try:
        rv = cli.main(args=args, prog_name=PROG, standalone_mode=False)
    except ScenarioError as e:
        _error(str(e))
        return EXIT_BAD_INPUT
    except SimulationError as e:
        _error(str(e))
        return EXIT_BAD_INPUT
    except AtmsimError as e:
        _error(str(e))
        return EXIT_BAD_INPUT
    except click.exceptions.Exit as e:  # --help, --version
        return int(e.exit_code or 0)
    except click.UsageError as e:  # unknown option, missing argument, ...
        _error(e.format_message() + _usage_hint(e))
        return e.exit_code
    except click.ClickException as e:
        _error(e.format_message())
        return e.exit_code
    except (_Interrupted, KeyboardInterrupt, click.exceptions.Abort):
        click.echo(f"{PROG}: interrupted; no output written", err=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _reader_gone()
        return 0
    except Exception as e:
        if os.environ.get("ATMSIM_DEBUG"):
            raise
        _error(f"internal error: {type(e).__name__}: {e} (set ATMSIM_DEBUG=1 for a traceback)")
        return 1
    return rv if isinstance(rv, int) else 0


def _reader_gone() -> None:
    """The reader of standard output stopped reading (`atmsim trace DIR | head`): nothing failed.
    What is left to flush goes nowhere, so the interpreter's exit does not complain either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _script() -> None:  # pragma: no cover
    sys.exit(main())
