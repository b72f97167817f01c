"""Synthetic frame-size traces for seed 004's three codecs (no trace ships with the seed).

Seed 004 (section 4.1) gives, for a Star Wars clip: MPEG-1 at 24 frames/s with a GOP of 16
(IBBPBBPBBPBBPBBP), mean frame 5,184 B, I frames "close 11000 Bytes"; JPEG at 15 frames/s, mean
frame 10,944 B, "bit rate varied from about 2.0 Mbits/sec to 2.5 Mbits/sec"; MPEG-2 "mean bit
rate ... approximately 5.0 Mbits/sec; the bit rate varied from about 0.8 Mbits/sec to 10.5".

**Model** (a lognormal GOP-modulated model in the spirit of the video models the seed cites,
e.g. its reference [23]): the log size of frame j of type k in GOP g is

    ln s = ln mu_k + x_g + e_j,   x_g = rho x_(g-1) + sqrt(1 - rho^2) sigma_g z_g,   e_j ~ N(0, sigma_k^2)

a stationary AR(1) "scene" level per GOP (high and low action scenes) and independent noise per
frame, with ``mu_k = m_k exp(-(sigma_g^2 + sigma_k^2) / 2)`` so the mean of type k is m_k. Sizes
are rounded to whole bytes (at least 1).

**Parameters.** Means from the seed (each type's sizes are scaled at the end so the trace's
mean per type is exactly the target); shape from the shipped MPEG-4 trace ``jurassic-park.txt``
(Fitzek and Reisslein 2001), the real action-movie trace we have: the sd of the log of the GOP
mean (0.49), its lag-1 correlation (0.937 per 12-frame GOP there, so 0.937^(16/12) = 0.917 per
16-frame GOP), each type's sd of log size around its GOP's level (I 0.29, P 0.16, B 0.18) and the
P/B mean ratio (1.40). That trace's 1-second rates span 0.04 to 3.0 times their mean; the seed's
MPEG-1 0.3 to 4.5 Mb/s around 1.5 is 0.2 to 3.0 times. ``tests/test_synth.py`` checks the
generated traces against those statistics of the shipped trace and against the seed's means and
ranges.

**Where the seed contradicts itself**, frame sizes win (frame loss depends on them): 5,184 B x 8
x 24/s = 1.0 Mb/s, not "approximately 1.5 Mbits/sec"; 10,944 B x 8 x 15/s = 1.31 Mb/s, not
"approximately 2.3". MPEG-2 has no frame size or rate in the seed: we take 24 frames/s (the same
clip, the same coder family) and mean frame = 5.0 Mb/s / 8 / 24 = 26,042 B with MPEG-1's type
ratios. JPEG's narrow range (2.0-2.5 around 2.3 Mb/s, +-11%) gives its small spreads.
"""

from __future__ import annotations

import math

import numpy as np

MPEG_GOP = "IBBPBBPBBPBBPBBP"

#: codec -> frame rate (frames/s), GOP pattern, mean size per frame type (bytes),
#: sigma per type, sigma of the GOP level, lag-1 correlation of the GOP level
_P_OVER_B = 1.40  # jurassic-park.txt: mean P 4,461 B / mean B 3,177 B


def _mpeg_means(mean: float, i_mean: float) -> dict[str, float]:
    # one I, 5 P and 10 B per GOP of 16 with P = 1.40 B: 5 (1.40 B) + 10 B = 16 mean - I
    b = (16 * mean - i_mean) / (5 * _P_OVER_B + 10)
    return {"I": i_mean, "P": _P_OVER_B * b, "B": b}


CODECS: dict[str, dict[str, object]] = {
    "mpeg1": {
        "frame_rate": 24.0,
        "gop": MPEG_GOP,
        "means": _mpeg_means(5184.0, 11000.0),
        "sigma": {"I": 0.29, "P": 0.16, "B": 0.18},
        "sigma_gop": 0.49,
        "rho": 0.937 ** (16 / 12),
    },
    "mpeg2": {
        "frame_rate": 24.0,
        "gop": MPEG_GOP,
        "means": _mpeg_means(5.0e6 / 8 / 24, 5.0e6 / 8 / 24 * 11000.0 / 5184.0),
        "sigma": {"I": 0.29, "P": 0.16, "B": 0.18},
        "sigma_gop": 0.49,
        "rho": 0.937 ** (16 / 12),
    },
    "jpeg": {
        "frame_rate": 15.0,
        "gop": "I",
        "means": {"I": 10944.0},
        "sigma": {"I": 0.03},
        "sigma_gop": 0.04,
        "rho": 0.95,
    },
}

#: the seed's clip: 3 minutes 40 seconds
CLIP_S = 220.0


def frame_rate(codec: str) -> float:
    return float(CODECS[codec]["frame_rate"])  # type: ignore[arg-type]


def synthesize(codec: str, frames: int | None = None, seed: int = 1) -> list[int]:
    """A trace of ``frames`` frame sizes (default: the 3 min 40 s clip) for ``codec``."""
    c = CODECS[codec]
    gop: str = c["gop"]  # type: ignore[assignment]
    means: dict[str, float] = c["means"]  # type: ignore[assignment]
    sig: dict[str, float] = c["sigma"]  # type: ignore[assignment]
    sg, rho = float(c["sigma_gop"]), float(c["rho"])  # type: ignore[arg-type]
    n = int(frames if frames is not None else round(CLIP_S * frame_rate(codec)))
    rng = np.random.default_rng([seed, sum(map(ord, codec))])
    gops = math.ceil(n / len(gop))
    x = np.empty(gops)
    x[0] = rng.normal(0.0, sg)
    z = rng.normal(0.0, 1.0, gops)
    for g in range(1, gops):
        x[g] = rho * x[g - 1] + math.sqrt(1 - rho * rho) * sg * z[g]
    types = np.array(list(gop * gops))[:n]
    level = np.repeat(x, len(gop))[:n]
    mu = np.array([math.log(means[t]) - (sg * sg + sig[t] ** 2) / 2 for t in types])
    e = rng.normal(0.0, 1.0, n) * np.array([sig[t] for t in types])
    sizes = np.exp(mu + level + e)
    for t in set(types.tolist()):
        sel = types == t
        sizes[sel] *= means[t] / sizes[sel].mean()
    return [max(1, int(round(v))) for v in sizes]


def frame_types(codec: str, n: int) -> list[str]:
    gop: str = CODECS[codec]["gop"]  # type: ignore[assignment]
    return list((gop * (n // len(gop) + 1))[:n])
