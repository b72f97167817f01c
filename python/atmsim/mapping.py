"""Traffic mapping (seed 001 section 6.1, Table 7): an application's max rate, mean rate and burst
to the ATM traffic descriptor PCR / SCR / MBS.

Two forms, both computed by the core (``atmsim._core.map_traffic``, ``policing::AppTraffic``):

- ``plain``: seed 001's relation for a perfect fluid with no segmentation overhead and no cell
  granularity, PCR = max_R / cell_size, SCR = mean_R / cell_size, MBS = B / cell_size, with
  cell_size = 48 (the payload bytes a cell carries) and MBS rounded up to whole cells (>= 1);
- ``aal5``: each TSDU plus ``header_bytes`` of encapsulation is one AAL5 frame of
  ``cells_per_tsdu`` cells (8-byte trailer and padding included), so PCR = max_R / TSDU x
  cells_per_tsdu, SCR likewise, and MBS = the cells of a burst of B bytes cut into TSDUs (a
  shorter last TSDU in its own frame).

Rates in Mb/s are of user data on input (1 Mb/s = 125,000 bytes/s) and of 53-byte cells on output.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .errors import ScenarioError

__all__ = ["map_traffic", "parse_header", "HEADER_PRESETS", "MAX_AAL5_SDU"]

#: ``--header`` names and the bytes each adds to a TSDU before AAL5:
#: ``tcp`` = TCP 20 + IP 20 + LLC/SNAP 8 = 48 (RFC 2684; seed 000 section 6; the core's
#: ``transport::tcp::TCP_IP_LLC_BYTES`` and ``policing::TCP_IP_BYTES`` + ``wire::LLC_SNAP``),
#: ``udp`` = UDP 8 + IP 20 + LLC/SNAP 8 = 36, ``none`` = no encapsulation (0).
HEADER_PRESETS = {"tcp": 20 + 20 + 8, "udp": 8 + 20 + 8, "none": 0}

_HEADER_CHOICES = "tcp, udp, none or a number of bytes"

#: Largest AAL5 CPCS-SDU (ITU-T I.363.5): a TSDU plus its header must fit in one frame.
MAX_AAL5_SDU = 65535

#: Largest burst accepted, bytes (the core takes a 64-bit unsigned integer).
MAX_BURST_BYTES = 2**63 - 1


def parse_header(value: str | int, name: str = "header") -> int:
    """``"tcp"`` (48), ``"udp"`` (36), ``"none"`` (0) or a number of bytes >= 0."""
    if isinstance(value, bool):
        raise ScenarioError("", name, f"must be {_HEADER_CHOICES}, got {value!r}")
    if isinstance(value, int):
        n = value
    else:
        text = str(value).strip().lower()
        if text in HEADER_PRESETS:
            return HEADER_PRESETS[text]
        try:
            n = int(text)
        except ValueError:
            raise ScenarioError("", name, f"must be {_HEADER_CHOICES}, got {value!r}") from None
    if not 0 <= n <= MAX_AAL5_SDU:
        raise ScenarioError("", name, f"must be between 0 and {MAX_AAL5_SDU} bytes, got {n}")
    return n


def _number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScenarioError("", name, f"must be a number, got {value!r}")
    v = float(value)
    if not math.isfinite(v):
        raise ScenarioError("", name, f"must be a finite number, got {value!r}")
    return v


def _integer(name: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ScenarioError("", name, f"must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise ScenarioError("", name, f"must be an integer in [{lo}, {hi}], got {value}")
    return value


def map_traffic(
    max_mbps: float,
    mean_mbps: float,
    burst_bytes: int,
    tsdu_bytes: int,
    header: str | int = "none",
    *,
    names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Map an application's traffic to PCR / SCR / MBS in both forms (seed 001 Table 7).

    ``max_mbps`` / ``mean_mbps``: maximum and mean rate of user data, Mb/s (0 < mean <= max);
    ``burst_bytes``: burst B of user data, bytes (>= 0); ``tsdu_bytes``: bytes per TSDU (>= 1);
    ``header``: encapsulation bytes per TSDU, ``"tcp"`` (TCP 20 + IP 20 + LLC/SNAP 8 = 48),
    ``"udp"`` (UDP 8 + IP 20 + LLC/SNAP 8 = 36), ``"none"`` (0) or an integer. TSDU + header must fit one AAL5 frame (<= 65535 bytes).

    Returns ``{"input": {...}, "cells_per_tsdu": n, "plain": {...}, "aal5": {...}}``, each form
    with ``pcr_cells_per_s``, ``scr_cells_per_s``, ``pcr_mbps``, ``scr_mbps`` (Mb/s of 53-byte
    cells) and ``mbs_cells``. Raises ``ScenarioError`` (path = the parameter) for bad values.
    """
    from . import _core

    n = {"max_mbps": "max_mbps", "mean_mbps": "mean_mbps", "burst_bytes": "burst_bytes",
         "tsdu_bytes": "tsdu_bytes", "header": "header"}
    n.update(names or {})
    mx = _number(n["max_mbps"], max_mbps)
    if mx <= 0:
        raise ScenarioError("", n["max_mbps"], f"must be > 0, got {max_mbps}")
    mean = _number(n["mean_mbps"], mean_mbps)
    if mean <= 0:
        raise ScenarioError("", n["mean_mbps"], f"must be > 0, got {mean_mbps}")
    if mean > mx:
        raise ScenarioError("", n["mean_mbps"], f"must be <= the maximum rate ({max_mbps}), got {mean_mbps}")
    burst = _integer(n["burst_bytes"], burst_bytes, 0, MAX_BURST_BYTES)
    tsdu = _integer(n["tsdu_bytes"], tsdu_bytes, 1, MAX_AAL5_SDU)
    hdr = parse_header(header, n["header"])
    if tsdu + hdr > MAX_AAL5_SDU:
        raise ScenarioError("", n["header"], f"TSDU + header ({tsdu} + {hdr} bytes) exceeds one AAL5 frame ({MAX_AAL5_SDU} bytes)")
    out = json.loads(_core.map_traffic(mx, mean, burst, tsdu, hdr))
    return {
        "input": {"max_mbps": mx, "mean_mbps": mean, "burst_bytes": burst, "tsdu_bytes": tsdu, "header_bytes": hdr},
        "cells_per_tsdu": out["cells_per_tsdu"],
        "plain": out["plain"],
        "aal5": out["aal5"],
    }

