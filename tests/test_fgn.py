"""The FGN generator behind the MPEG-2 video model (seed 000 section 4, EXPERIMENTS.md S000)
checked with an outside estimator: detrended fluctuation analysis from `nolds` (Hardstone et al.
2012 describe it; for fractional Gaussian noise the DFA exponent is H). The core's own tests
check mean, variance, autocovariance and its own Hurst estimators (crates/atmsim-core/src/fgn.rs);
this one does not share code with the generator."""

from __future__ import annotations

import numpy as np
import pytest

from atmsim import _core

nolds = pytest.importorskip("nolds")


@pytest.mark.parametrize("method", ["paxson", "davies_harte"])
def test_dfa_gives_the_requested_hurst_parameter(method: str) -> None:
    # the check: 2^16 samples, H = 0.8, within 0.05 (DFA takes some seconds a series;
    # three seeds of each method were within 0.022 when this was written)
    x = np.asarray(_core.fgn(1 << 16, 0.8, method, 1))
    assert len(x) == 1 << 16
    # the sample mean of long-range-dependent noise varies with sd n^(H-1) = 0.108 here
    assert abs(x.mean()) < 0.4 and abs(x.std() - 1.0) < 0.1
    h = nolds.dfa(x, fit_exp="poly")
    assert abs(h - 0.8) < 0.05, (method, h)


def test_dfa_tells_white_noise_from_fgn() -> None:
    # the estimator is not blind: independent normal values give about 0.5
    x = np.random.default_rng(7).standard_normal(1 << 16)
    assert abs(nolds.dfa(x, fit_exp="poly") - 0.5) < 0.05


def test_fgn_bad_arguments() -> None:
    with pytest.raises(ValueError, match="hurst"):
        _core.fgn(1024, 1.2)
    with pytest.raises(ValueError, match="power-of-two"):
        _core.fgn(1000, 0.8, "paxson")
    with pytest.raises(ValueError, match="method"):
        _core.fgn(1024, 0.8, "hosking")
