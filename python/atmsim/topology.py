"""Network generators: the ATM Forum's ABR test configurations and a few plain shapes, each
returning a complete scenario dict (``atmsim.run(atmsim.topology.gfc2())`` runs it).

ABR test configurations (issue 30; sources in each function's docstring):

- ``parking_lot(n)``: N switches in a row, a connection entering at each and all leaving at the
  last one (Jain 1996 survey, the "parking lot"; the beat-down test).
- ``gfc1()``, ``gfc2()``: the generic fairness configurations of Simcoe, ATM Forum/94-0557 (via
  NeST's transcription, see ``gfc2``).
- ``upstream_bottleneck()``: seed 003's Figure 5 (Goyal et al., ATM Forum/98-0807).
- ``link_bottleneck()``: a slower second trunk (our configuration, after the three-source
  configurations of Vandalore et al., ATM Forum/98-0408).
- ``chain_transient(n)``: a chain whose cross connections join and leave.

Plain shapes for ``atmsim new`` (issue 29 item 3): ``dumbbell``, ``chain``, ``star``, each with a
traffic mix (``abr``, ``onoff``, ``tcp``, ``ubr``, ``ubr-tcp``, ``cbr``, ``video``, ``mix``).

Every generator takes ``distance`` (``lan``, ``wan``, ``satellite``: ``DISTANCES``), ``traffic``
and ``scheme`` (an ABR scheme name, ``SCHEME_DEFAULTS``, or a full ``nodes[].abr`` table).
``max_min(doc)`` gives the max-min fair rates of a generated (or any) scenario's ABR connections
from the project's water-filling oracle (``atmsim.reproduce.maxmin``); ``to_toml(doc)`` writes it
as a commented TOML file (``atmsim new KIND > file.toml``).
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .reproduce.maxmin import max_min_fair

__all__ = [
    "DISTANCES", "TRAFFIC", "SCHEME_DEFAULTS", "CONFIGURATIONS", "SHAPES", "parking_lot", "gfc1", "gfc2",
    "upstream_bottleneck", "link_bottleneck", "chain_transient", "dumbbell", "chain", "star", "max_min",
    "scheme_table", "scheme_target", "to_toml", "generate", "KINDS",
]

OC3 = 155.52
#: one-way delay of a geostationary satellite hop, us (seed 000 section 7.4: 275 ms)
GEO_US = 275_000.0

#: distance classes: trunk length (km), access-link length (km), and whether each source's
#: access link is a satellite hop (the feedback path to the source, as seed 000's satellite
#: configurations do). The LAN and WAN lengths are our choice (1 km; 1000 km trunks, the
#: distance OSU's WAN simulations are usually described with; not checked against each paper).
DISTANCES: dict[str, dict[str, Any]] = {
    "lan": {"trunk_km": 1.0, "access_km": 1.0, "satellite": False, "duration_s": 0.4},
    "wan": {"trunk_km": 1000.0, "access_km": 1.0, "satellite": False, "duration_s": 0.8},
    "satellite": {"trunk_km": 1.0, "access_km": 1.0, "satellite": True, "duration_s": 5.0},
}

#: traffic kinds a configuration's connections can carry (ABR unless named otherwise)
TRAFFIC = ("persistent", "onoff", "tcp")
#: the ``atmsim new`` traffic mixes (``abr`` is persistent ABR)
MIXES = ("abr", "onoff", "tcp", "ubr", "ubr-tcp", "cbr", "video", "mix")

#: each scheme's table when given by name: the published defaults where the scheme's source
#: gives them (docs/abr-schemes.md); queue thresholds our choice (one set for every threshold
#: scheme: 100 / 50 cells; EPRCA's "very congested" threshold 500 cells)
SCHEME_DEFAULTS: dict[str, dict[str, Any]] = {
    "erica": {"scheme": "erica", "target_utilization": 0.9, "interval_s": 0.005},
    "erica+": {"scheme": "erica+", "interval_s": 0.005},
    "efci": {"scheme": "efci", "high_cells": 100, "low_cells": 50},
    "rr": {"scheme": "rr", "high_cells": 100, "low_cells": 50},
    "eprca": {"scheme": "eprca"},
    "aprc": {"scheme": "aprc"},
    "capc": {"scheme": "capc"},
    "osu": {"scheme": "osu"},
    "phantom": {"scheme": "phantom"},
    "charny": {"scheme": "charny"},
    "ucsc": {"scheme": "ucsc"},
    "none": {"scheme": "none"},
}


def scheme_table(scheme: str | Mapping[str, Any]) -> dict[str, Any]:
    """A ``nodes[].abr`` table from a scheme name (``SCHEME_DEFAULTS``) or a table (copied)."""
    if isinstance(scheme, Mapping):
        return dict(scheme)
    if scheme not in SCHEME_DEFAULTS:
        raise ValueError(f"unknown ABR scheme {scheme!r}; one of {', '.join(SCHEME_DEFAULTS)}")
    return dict(SCHEME_DEFAULTS[scheme])


def scheme_target(table: Mapping[str, Any]) -> float:
    """The share of each link's rate the scheme aims to fill (what the oracle's capacities are
    scaled by): the ``target_utilization`` of ERICA, the OSU scheme, CAPC, Charny's and UCSC (0.9),
    1 for ERICA+ (its target follows the queue) and for the schemes without a target (EFCI, RR,
    EPRCA, APRC; Phantom's fixed point is computed in its test, not here)."""
    name = table.get("scheme")
    if name in ("erica", "osu", "capc", "charny", "ucsc"):
        return float(table.get("target_utilization", 0.9))
    return 1.0


class _Net:
    """A scenario under construction: switches, trunks, and connections each with its own
    source and destination host."""

    def __init__(self, description: str, distance: str, traffic: str, scheme: str | Mapping[str, Any] | None,
                 duration_s: float | None, seed: int, buffer_cells: int | None, icr_mbps: float | None):
        if distance not in DISTANCES:
            raise ValueError(f"unknown distance {distance!r}; one of {', '.join(DISTANCES)}")
        if traffic not in TRAFFIC + MIXES:
            raise ValueError(f"unknown traffic {traffic!r}; one of {', '.join(dict.fromkeys(TRAFFIC + MIXES))}")
        self.d = DISTANCES[distance]
        self.distance, self.traffic = distance, traffic
        self.scheme = None if scheme is None else scheme_table(scheme)
        self.buffer_cells = buffer_cells
        self.icr = icr_mbps
        duration = float(duration_s if duration_s is not None else self.d["duration_s"])
        self.doc: dict[str, Any] = {
            "description": description,
            "run": {"duration_s": duration, "warmup_s": round(duration / 2, 9), "seed": seed,
                    "sample_interval_s": _sample_interval(duration)},
            "nodes": [], "links": [], "connections": [],
        }
        self.notes: list[str] = []

    def switch(self, name: str) -> None:
        node: dict[str, Any] = {"name": name, "kind": "switch"}
        if self.buffer_cells is not None:
            node["buffer_cells"] = int(self.buffer_cells)
        if self.scheme is not None:
            node["abr"] = dict(self.scheme)
        self.doc["nodes"].append(node)

    def trunk(self, a: str, b: str, rate_mbps: float = OC3) -> None:
        self.doc["links"].append({"a": a, "b": b, "rate_mbps": rate_mbps, "length_km": self.d["trunk_km"]})

    def _host_link(self, host: str, sw: str, rate: float, source: bool) -> None:
        link: dict[str, Any] = {"a": host, "b": sw, "rate_mbps": rate} if source else {"a": sw, "b": host, "rate_mbps": rate}
        if source and self.d["satellite"]:
            link["delay_us"] = GEO_US
        else:
            link["length_km"] = self.d["access_km"]
        self.doc["links"].append(link)

    def connection(self, name: str, switches: Sequence[str], traffic: str | None = None, *,
                   access_mbps: float = OC3, start_s: float = 0.0, stop_s: float | None = None) -> None:
        """Connection ``name`` from its own host ``s-NAME`` through ``switches`` to ``d-NAME``."""
        src, dst = f"s-{name}", f"d-{name}"
        self.doc["nodes"].insert(0, {"name": src, "kind": "host"})
        self.doc["nodes"].append({"name": dst, "kind": "host"})
        self._host_link(src, switches[0], access_mbps, True)
        self._host_link(dst, switches[-1], access_mbps, False)
        conn = {"name": name, "route": [src, *switches, dst]}
        if traffic is None:
            traffic = _mix(self.traffic, len(self.doc["connections"]) + 1)[-1]
        conn.update(_traffic(traffic, access_mbps, self._rtt_s(len(switches))))
        if start_s or stop_s is not None:
            conn["source"]["start_s"] = start_s
            if stop_s is not None and conn["source"]["kind"] != "tcp":  # a TCP source has no stop time
                conn["source"]["stop_s"] = stop_s
        if conn["category"] == "abr" and self.icr is not None:
            conn["abr"]["icr_mbps"] = min(self.icr, access_mbps)
        self.doc["connections"].append(conn)

    def _rtt_s(self, n_switches: int) -> float:
        one_way = (n_switches - 1) * self.d["trunk_km"] * 5e-6 + 2 * self.d["access_km"] * 5e-6
        if self.d["satellite"]:
            one_way += GEO_US * 1e-6
        return 2 * one_way

    def done(self) -> dict[str, Any]:
        if not any(c["category"] == "abr" for c in self.doc["connections"]):
            for node in self.doc["nodes"]:
                node.pop("abr", None)  # no ABR connection: no scheme to show
        rates = max_min(self.doc)
        if rates:
            shown = ", ".join(f"{k} {v:.3f}" for k, v in rates.items())
            util = scheme_target(self.scheme or {})
            self.doc["description"] += (f" Max-min fair rates (water-filling oracle, links at {util:g} x their rate, "
                                        f"sources active at the end of the run), Mb/s: {shown}.")
        return self.doc


def _sample_interval(duration: float) -> float:
    """Samples every 0.5 ms up to 1 s of run, then about 2,000 samples in all."""
    return 0.0005 if duration <= 1.0 else round(duration / 2000, 6)


def _traffic(kind: str, access_mbps: float, rtt_s: float) -> dict[str, Any]:
    """The category, source and ``abr`` table of one connection of traffic ``kind``.

    Our choices (no configuration paper fixes them): ON-OFF sources send at the access rate
    half the time with exponential ON and OFF periods of mean 10 ms (period 20 ms); TCP sends
    an infinite file with MSS 9140 B (the 9180-byte AAL5 MTU of RFC 1626 less 40), a window of
    twice the path's bandwidth-delay product at the access rate (at least 64 KB, window scaling
    above) and Reno recovery; video is one MPEG-2 source (seed 000 section 4: mean 7.5, sd 7
    Mb/s) on rt-VBR; CBR sends 10 Mb/s.
    """
    abr: dict[str, Any] = {"category": "abr", "abr": {}}
    if kind in ("persistent", "abr"):
        return {**abr, "source": {"kind": "persistent"}}
    if kind == "onoff":
        return {**abr, "source": {"kind": "onoff", "peak_mbps": access_mbps, "duty_cycle": 0.5, "period_s": 0.02,
                                  "exponential": True}}
    if kind in ("tcp", "ubr-tcp"):
        bdp = access_mbps * 1e6 / 8 * max(rtt_s, 1e-3)
        window = max(65535, int(2 * bdp))
        tcp: dict[str, Any] = {"mss_bytes": 9140, "window_bytes": window}
        if window > 65535:
            tcp["window_scale"] = True
        base = abr if kind == "tcp" else {"category": "ubr"}
        return {**base, "source": {"kind": "tcp", "tcp": tcp}}
    if kind == "ubr":
        return {"category": "ubr", "source": {"kind": "persistent"}}
    if kind == "cbr":
        return {"category": "cbr", "source": {"kind": "cbr", "rate_mbps": 10.0}}
    if kind == "video":
        return {"category": "rt-vbr", "source": {"kind": "mpeg2", "mean_mbps": 7.5, "std_mbps": 7.0}}
    raise ValueError(f"unknown traffic {kind!r}")


def _chain_switches(net: _Net, names: Sequence[str], rates: Sequence[float]) -> None:
    for s in names:
        net.switch(s)
    for a, b, r in zip(names, names[1:], rates):
        net.trunk(a, b, r)


def _common(kw: dict[str, Any]) -> dict[str, Any]:
    return {
        "distance": kw.get("distance", "wan"), "traffic": kw.get("traffic", "persistent"),
        "scheme": kw.get("scheme", "erica"), "duration_s": kw.get("duration_s"), "seed": kw.get("seed", 1),
        "buffer_cells": kw.get("buffer_cells"), "icr_mbps": kw.get("icr_mbps", 10.0),
    }


def parking_lot(n: int = 4, *, rate_mbps: float = OC3, distance: str = "wan", traffic: str = "persistent",
                scheme: str | Mapping[str, Any] = "erica", duration_s: float | None = None, seed: int = 1,
                buffer_cells: int | None = None, icr_mbps: float | None = 10.0) -> dict[str, Any]:
    """The parking lot: switches S1..Sn in a row (n - 1 trunks); connection ``c1`` enters at S1,
    ``ck`` at Sk (k < n), and all leave at Sn, so the last trunk carries all n - 1 and trunk k
    carries k of them. Max-min: every connection gets C / (n - 1) of the last trunk.

    Source: the "parking lot" configuration of the ATM Forum's traffic management work (Jain,
    "Congestion control and traffic management in ATM networks: recent advances and a survey",
    Computer Networks and ISDN Systems 28, 1996), used there to show the beat-down problem of
    binary feedback: the connections crossing more congested switches get less. Link rates,
    lengths and the number of switches are ours (defaults: 4 switches, OC-3 trunks).
    """
    if n < 2:
        raise ValueError(f"a parking lot needs at least 2 switches, got {n}")
    net = _Net(f"atmsim topology: ABR parking lot of {n} switches S1..S{n} ({distance}; {traffic} sources; "
               f"scheme {scheme if isinstance(scheme, str) else scheme.get('scheme')}): connection ck enters at "
               f"switch Sk and every connection leaves at S{n}.", **_common(locals()))
    names = [f"S{i}" for i in range(1, n + 1)]
    _chain_switches(net, names, [rate_mbps] * (n - 1))
    for k in range(1, n):
        net.connection(f"c{k}", names[k - 1:])
    return net.done()


#: GFC-1 and GFC-2 as (trunks: (from, to, Mb/s), connection types: type -> (count, first switch,
#: last switch)); the transcription of Simcoe's figures in NeST (NITK Surathkal's network stack
#: tester, nest/topology_helpers/gfc_1.py and gfc_2.py, GPL-2.0), which cites Simcoe, "Test
#: configurations for fairness and other tests", ATM Forum/94-0557, July 1994.
GFC1 = (
    (("R1", "R2", 50.0), ("R2", "R3", 150.0), ("R3", "R4", 150.0), ("R4", "R5", 100.0)),
    {"A": (3, "R1", "R4"), "B": (3, "R2", "R5"), "C": (3, "R3", "R4"), "D": (6, "R1", "R2"),
     "E": (6, "R4", "R5"), "F": (2, "R2", "R3")},
)
GFC2 = (
    (("R1", "R2", 50.0), ("R2", "R3", 100.0), ("R3", "R4", 50.0), ("R4", "R5", 150.0), ("R5", "R6", 150.0),
     ("R6", "R7", 50.0)),
    {"A1": (1, "R1", "R6"), "A2": (1, "R2", "R6"), "A3": (1, "R3", "R6"), "B1": (1, "R1", "R7"),
     "B2": (1, "R2", "R7"), "B3": (1, "R4", "R7"), "C": (3, "R5", "R6"), "D": (1, "R1", "R2"),
     "E": (2, "R2", "R3"), "F": (1, "R3", "R4"), "G": (7, "R6", "R7"), "H": (2, "R4", "R5")},
)


def _gfc(which: str, spec: Any, kw: dict[str, Any]) -> dict[str, Any]:
    trunks, types = spec
    n = sum(c for c, _, _ in types.values())
    net = _Net(f"atmsim topology: {which} (generic fairness configuration, Simcoe, ATM Forum/94-0557, as transcribed "
               f"by NeST), {len(trunks) + 1} switches, {n} connections ({kw['distance']}; {kw['traffic']} sources): "
               + "; ".join(f"{t} x{c} {a}->{b}" for t, (c, a, b) in types.items()) + ".", **_common(kw))
    names = [trunks[0][0]] + [b for _, b, _ in trunks]
    _chain_switches(net, names, [r for _, _, r in trunks])
    access = max(r for _, _, r in trunks)
    for t, (count, a, b) in types.items():
        path = names[names.index(a): names.index(b) + 1]
        for i in range(1, count + 1):
            net.connection(t if count == 1 else f"{t}{i}", path, access_mbps=access)
    return net.done()


def gfc1(*, distance: str = "wan", traffic: str = "persistent", scheme: str | Mapping[str, Any] = "erica",
         duration_s: float | None = None, seed: int = 1, buffer_cells: int | None = None,
         icr_mbps: float | None = 10.0) -> dict[str, Any]:
    """GFC-1: five switches R1..R5, trunks 50, 150, 150, 100 Mb/s; 23 connections of six types
    (A x3 R1->R4, B x3 R2->R5, C x3 R3->R4, D x6 R1->R2, E x6 R4->R5, F x2 R2->R3). Max-min at
    full link rates: A, D 5.556; B, E 11.111; C 33.333; F 50 Mb/s.

    Source: Simcoe, ATM Forum/94-0557 (July 1994), through NeST's transcription (``GFC1``); the
    original figure was not available to us. Access links run at the fastest trunk's rate (150);
    lengths are the distance class's (our choice).
    """
    return _gfc("GFC-1", GFC1, locals())


def gfc2(*, distance: str = "wan", traffic: str = "persistent", scheme: str | Mapping[str, Any] = "erica",
         duration_s: float | None = None, seed: int = 1, buffer_cells: int | None = None,
         icr_mbps: float | None = 10.0) -> dict[str, Any]:
    """GFC-2: seven switches R1..R7, trunks 50, 100, 50, 150, 150, 50 Mb/s; 22 connections of eight
    types (A x3 entering at R1, R2, R3 and leaving at R6; B x3 entering at R1, R2, R4 and leaving
    at R7; C x3 R5->R6; D R1->R2; E x2 R2->R3; F R3->R4; G x7 R6->R7; H x2 R4->R5). Max-min at
    full link rates: A 10, B 5, C 35, D 35, E 35, F 10, G 5, H 52.5 Mb/s (the allocation the OSU
    ERICA papers print for GFC-2, which corroborates the transcription).

    Source: Simcoe, ATM Forum/94-0557, through NeST's transcription (``GFC2``); the ERICA papers
    (Jain, Kalyanaraman et al.) use it as their GFC-2. Access links at 150 Mb/s, lengths the
    distance class's (our choice; NeST's delays are its own).
    """
    return _gfc("GFC-2", GFC2, locals())


def upstream_bottleneck(n_upstream: int = 15, n_local: int = 2, *, rate_mbps: float = OC3,
                        distance: str = "wan", traffic: str = "persistent",
                        scheme: str | Mapping[str, Any] = "erica", duration_s: float | None = None, seed: int = 1,
                        buffer_cells: int | None = None, icr_mbps: float | None = 10.0) -> dict[str, Any]:
    """Upstream bottleneck: Sw1 -> Sw2 -> Sw3. Connections c1..c{n_upstream} share Sw1->Sw2; c1
    goes on to Sw3, where c{n_upstream + 1}.. (``n_local`` of them) join it on Sw2->Sw3. c1 is
    held to C / n_upstream upstream, so Sw2->Sw3's locals share the rest: the test of whether a
    scheme gives away what an upstream-bottlenecked connection cannot use.

    Source: seed 003's Figure 5 (Goyal, Fahmy, Jain, Vandalore, Narayanaswamy, ATM
    Forum/98-0807; ``scenarios/seed003/fairness.toml``), with 15 + 2 connections. There sources
    1-15 are limited to 10 Mb/s by their application; here all are of the chosen traffic (so the
    upstream link is the bottleneck), our choice.
    """
    net = _Net(f"atmsim topology: upstream bottleneck ({distance}; {traffic} sources): c1..c{n_upstream} share "
               f"Sw1->Sw2, c1 continues to Sw3 and shares Sw2->Sw3 with {n_local} local connections.", **_common(locals()))
    names = ["Sw1", "Sw2", "Sw3"]
    _chain_switches(net, names, [rate_mbps, rate_mbps])
    net.connection("c1", names)
    for k in range(2, n_upstream + 1):
        net.connection(f"c{k}", names[:2])
    for k in range(n_upstream + 1, n_upstream + n_local + 1):
        net.connection(f"c{k}", names[1:])
    return net.done()


def link_bottleneck(*, rate_mbps: float = OC3, bottleneck_fraction: float = 0.5, distance: str = "wan",
                    traffic: str = "persistent", scheme: str | Mapping[str, Any] = "erica",
                    duration_s: float | None = None, seed: int = 1, buffer_cells: int | None = None,
                    icr_mbps: float | None = 10.0) -> dict[str, Any]:
    """Link bottleneck: Sw1 -> Sw2 -> Sw3 with the second trunk at ``bottleneck_fraction`` of the
    first's rate; s1 and s2 cross both trunks, s3 only the first. Max-min: s1, s2 get half the
    slow trunk, s3 the rest of the fast one (at the defaults C / 4, C / 4, C / 2).

    Source: our configuration, after the three-source configurations of Vandalore, Fahmy, Jain,
    Goyal, Goyal (ATM Forum/98-0408: "3 Sources", "Source Bottleneck"), whose figures we could
    not see; the rates are our choice.
    """
    net = _Net(f"atmsim topology: link bottleneck ({distance}; {traffic} sources): s1, s2 cross Sw1->Sw2 and the "
               f"slower Sw2->Sw3 ({bottleneck_fraction:g} x the rate); s3 crosses Sw1->Sw2 only.", **_common(locals()))
    names = ["Sw1", "Sw2", "Sw3"]
    _chain_switches(net, names, [rate_mbps, rate_mbps * bottleneck_fraction])
    net.connection("s1", names)
    net.connection("s2", names)
    net.connection("s3", names[:2])
    return net.done()


def chain_transient(n: int = 3, *, rate_mbps: float = OC3, distance: str = "wan", traffic: str = "persistent",
                    scheme: str | Mapping[str, Any] = "erica", duration_s: float | None = None, seed: int = 1,
                    buffer_cells: int | None = None, icr_mbps: float | None = 10.0) -> dict[str, Any]:
    """Chain transient: switches S1..S{n+1}; ``long`` crosses every trunk from the start; trunk k
    gets k cross connections ``xk_1..xk_k``, which join at 25 % of the run; those of the last
    trunk leave at 60 % (TCP sources only join: a TCP source has no stop time). Max-min: alone,
    ``long`` has the whole rate C; with everyone, C / (n + 1) (the last trunk), trunk k's cross
    connections (C - C / (n + 1)) / k; after the last trunk's leave, ``long`` rises to C / n.
    ``max_min(doc)`` gives the last phase (the sources active at the end), ``max_min(doc, at=t)``
    any phase.

    Source: the transient configurations of the ATM Forum work (sources that start and stop;
    seed 003's Figure 4 two-source transient, ATM Forum/98-0807), extended to a chain; times and
    sizes are our choice.
    """
    net = _Net(f"atmsim topology: chain transient of {n} trunks ({distance}; {traffic} sources): `long` crosses "
               "them all from the start; trunk k gets k cross connections xk_j, joining at 25% of the run; the last "
               "trunk's leave at 60%.", **_common(locals()))
    duration = net.doc["run"]["duration_s"]
    names = [f"S{i}" for i in range(1, n + 2)]
    _chain_switches(net, names, [rate_mbps] * n)
    net.connection("long", names)
    join, leave = round(0.25 * duration, 9), round(0.6 * duration, 9)
    for k in range(1, n + 1):
        for j in range(1, k + 1):
            net.connection(f"x{k}_{j}", names[k - 1:k + 1], start_s=join, stop_s=leave if k == n else None)
    return net.done()


def dumbbell(n: int = 4, *, rate_mbps: float = OC3, bottleneck_mbps: float | None = None, distance: str = "lan",
             traffic: str = "abr", scheme: str | Mapping[str, Any] | None = "erica", duration_s: float | None = None,
             seed: int = 1, buffer_cells: int | None = None, icr_mbps: float | None = 10.0) -> dict[str, Any]:
    """Dumbbell: n connections from their hosts through switches L -> R (one trunk at
    ``bottleneck_mbps``, default the access rate) to their own destinations."""
    net = _Net(f"atmsim topology: dumbbell, {n} connections over one trunk L->R ({distance}; traffic {traffic}).",
               **_common(locals()))
    _chain_switches(net, ["L", "R"], [bottleneck_mbps or rate_mbps])
    for k, t in enumerate(_mix(traffic, n), start=1):
        net.connection(f"c{k}", ["L", "R"], t, access_mbps=rate_mbps)
    return net.done()


def chain(n: int = 3, *, rate_mbps: float = OC3, distance: str = "lan", traffic: str = "abr",
          scheme: str | Mapping[str, Any] | None = "erica", duration_s: float | None = None, seed: int = 1,
          buffer_cells: int | None = None, icr_mbps: float | None = 10.0) -> dict[str, Any]:
    """Chain of n switches S1..Sn: ``long`` crosses them all, ``ck`` crosses trunk Sk->S(k+1)."""
    if n < 2:
        raise ValueError(f"a chain needs at least 2 switches, got {n}")
    net = _Net(f"atmsim topology: chain of {n} switches, `long` end to end and one connection per trunk "
               f"({distance}; traffic {traffic}).", **_common(locals()))
    names = [f"S{i}" for i in range(1, n + 1)]
    _chain_switches(net, names, [rate_mbps] * (n - 1))
    kinds = _mix(traffic, n)
    net.connection("long", names, kinds[0])
    for k in range(1, n):
        net.connection(f"c{k}", names[k - 1:k + 1], kinds[k])
    return net.done()


def star(n: int = 4, *, rate_mbps: float = OC3, distance: str = "lan", traffic: str = "abr",
         scheme: str | Mapping[str, Any] | None = "erica", duration_s: float | None = None, seed: int = 1,
         buffer_cells: int | None = None, icr_mbps: float | None = 10.0) -> dict[str, Any]:
    """Star: n connections from their hosts into one switch X and out to one shared host
    ``server`` (the server's link is the bottleneck)."""
    net = _Net(f"atmsim topology: star, {n} hosts through switch X to one server ({distance}; traffic {traffic}).",
               **_common(locals()))
    net.switch("X")
    net.doc["nodes"].append({"name": "server", "kind": "host"})
    net.doc["links"].append({"a": "X", "b": "server", "rate_mbps": rate_mbps, "length_km": net.d["access_km"]})
    for k, t in enumerate(_mix(traffic, n), start=1):
        src = f"s-c{k}"
        net.doc["nodes"].insert(0, {"name": src, "kind": "host"})
        net._host_link(src, "X", rate_mbps, True)
        conn = {"name": f"c{k}", "route": [src, "X", "server"]}
        conn.update(_traffic(t, rate_mbps, net._rtt_s(1)))
        if conn["category"] == "abr" and icr_mbps is not None:
            conn["abr"]["icr_mbps"] = min(icr_mbps, rate_mbps)
        net.doc["connections"].append(conn)
    return net.done()


def _mix(traffic: str, n: int) -> list[str]:
    """Each connection's traffic: ``mix`` cycles through ABR, TCP over UBR, video and CBR."""
    if traffic == "mix":
        cycle = ["abr", "ubr-tcp", "video", "cbr"]
        return [cycle[i % 4] for i in range(n)]
    return [traffic] * n


# ----------------------------------------------------------------------------------- the oracle


def _link_key(a: str, b: str) -> str:
    return f"{a}->{b}"


def _demand(conn: Mapping[str, Any]) -> float:
    """What a source can use at most (Mb/s of cells): persistent and TCP are greedy; ON-OFF its
    mean (peak x duty cycle); CBR its rate."""
    src = conn.get("source", {})
    kind = src.get("kind")
    if kind == "onoff":
        return float(src["peak_mbps"]) * float(src["duty_cycle"])
    if kind == "cbr":
        return float(src["rate_mbps"])
    if kind == "mpeg2":
        return float(src["mean_mbps"]) * float(src.get("sources", 1))
    return math.inf


def _active(conn: Mapping[str, Any], at: float) -> bool:
    src = conn.get("source", {})
    stop = src.get("stop_s")
    return float(src.get("start_s", 0.0)) <= at and (stop is None or at < float(stop))


def max_min(doc: Mapping[str, Any], utilization: float | None = None, at: float | None = None) -> dict[str, float]:
    """Max-min fair rates (Mb/s) of the ABR connections of scenario ``doc`` active at time ``at``
    (default: the end of the run), by the water-filling oracle. Each directed link's capacity is
    its rate times ``utilization`` (default: the target of the first switch's scheme,
    ``scheme_target``) less the mean rate of the CBR and VBR connections crossing it (greedy UBR
    is left out: what it gets depends on the port's scheduler); a
    connection's own access rate caps it (a greedy source's PCR defaults to it)."""
    run = doc.get("run", {})
    t = float(run.get("duration_s", 0.0)) * (1 - 1e-9) if at is None else at
    if utilization is None:
        table = next((n["abr"] for n in doc.get("nodes", []) if n.get("kind") == "switch" and n.get("abr")), {})
        utilization = scheme_target(table)
    rate = {}
    for link in doc.get("links", []):
        rate[_link_key(link["a"], link["b"])] = rate[_link_key(link["b"], link["a"])] = float(link["rate_mbps"])
    caps = {k: v * utilization for k, v in rate.items()}
    paths: dict[str, list[str]] = {}
    demands: dict[str, float] = {}
    for conn in doc.get("connections", []):
        if not _active(conn, t):
            continue
        route = conn["route"]
        links = [_link_key(a, b) for a, b in zip(route, route[1:])]
        if conn.get("category") != "abr":
            if math.isfinite(_demand(conn)):  # greedy UBR is left out: its share is the scheduler's
                for k in links:
                    caps[k] = max(0.0, caps[k] - _demand(conn))
            continue
        paths[conn["name"]] = links
        pcr = conn.get("abr", {}).get("pcr_mbps", rate[links[0]])
        demands[conn["name"]] = min(_demand(conn), float(pcr))
    return max_min_fair(caps, paths, demands) if paths else {}


# ------------------------------------------------------------------------------------ TOML out


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isinf(v) or math.isnan(v):
            raise ValueError("TOML has no place for an infinite or NaN value here")
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _toml_key(k: str) -> str:
    return k if k and all(c.isalnum() or c in "-_" for c in k) else json.dumps(k)


def _toml_table(prefix: str, table: Mapping[str, Any], out: list[str]) -> None:
    """Scalars first, then each table value as a sub-table ``[prefix.key]`` (a node's tables stay
    inline: ``abr = { scheme = "erica", ... }``)."""
    inline = prefix == "nodes"
    subs = [(k, v) for k, v in table.items() if isinstance(v, Mapping) and not inline]
    for k, v in table.items():
        if not (isinstance(v, Mapping) and not inline):
            out.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for k, v in subs:
        out.append(f"[{prefix}.{_toml_key(k)}]")
        _toml_table(f"{prefix}.{_toml_key(k)}", v, out)


_SECTION_NOTES = {
    "run": "# How long to simulate; statistics cover the time after warmup_s. Change with --set run.duration_s=...",
    "nodes": "# Hosts and switches. A switch's `abr` table is its ABR feedback scheme (docs/abr.md, docs/abr-schemes.md).",
    "links": "# Links are two-way: rate in Mb/s of 53-byte cells, length_km (5 us/km) or delay_us.",
    "connections": "# Each connection: its route (host, switches, host), service category and traffic source.",
}


def to_toml(doc: Mapping[str, Any], header: Sequence[str] = ()) -> str:
    """Scenario ``doc`` as TOML text, with ``header`` comment lines and a note above each section."""
    out = [f"# {line}".rstrip() for line in header]
    if header:
        out.append("")
    for k, v in doc.items():
        if not isinstance(v, (Mapping, list)):
            out.append(f"{_toml_key(k)} = {_toml_value(v)}")
    for k, v in doc.items():
        if isinstance(v, Mapping):
            out += ["", _SECTION_NOTES.get(k, f"# {k}"), f"[{_toml_key(k)}]"]
            _toml_table(k, v, out)
        elif isinstance(v, list):
            out += ["", _SECTION_NOTES.get(k, f"# {k}")]
            for item in v:
                out.append(f"[[{_toml_key(k)}]]")
                _toml_table(k, item, out)
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------- the registry

#: the ABR test configurations of the suite (``atmsim suite abr``)
CONFIGURATIONS: dict[str, Callable[..., dict[str, Any]]] = {
    "parking-lot": parking_lot, "gfc1": gfc1, "gfc2": gfc2, "upstream-bottleneck": upstream_bottleneck,
    "link-bottleneck": link_bottleneck, "chain-transient": chain_transient,
}
#: the plain shapes of ``atmsim new``
SHAPES: dict[str, Callable[..., dict[str, Any]]] = {"dumbbell": dumbbell, "chain": chain, "star": star}
KINDS: dict[str, Callable[..., dict[str, Any]]] = {**SHAPES, **CONFIGURATIONS}


def generate(kind: str, **options: Any) -> dict[str, Any]:
    """The scenario of generator ``kind`` (``KINDS``) with ``options`` (None values dropped)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}; one of {', '.join(KINDS)}")
    return copy.deepcopy(KINDS[kind](**{k: v for k, v in options.items() if v is not None}))
