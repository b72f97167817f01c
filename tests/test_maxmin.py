"""The water-filling (max-min fair) function used as the independent reference for ABR fairness."""

from __future__ import annotations

import math

import pytest

from atmsim.reproduce.maxmin import max_min_fair


def test_one_link_equal_shares() -> None:
    assert max_min_fair({"L": 90.0}, {"a": ["L"], "b": ["L"], "c": ["L"]}) == pytest.approx({"a": 30, "b": 30, "c": 30})


def test_demand_limited_connections_leave_capacity_to_others() -> None:
    # 100 on one link; a wants 10, b wants 20, c unlimited: c gets 100 - 10 - 20 = 70
    r = max_min_fair({"L": 100.0}, {"a": ["L"], "b": ["L"], "c": ["L"]}, {"a": 10, "b": 20})
    assert r == pytest.approx({"a": 10, "b": 20, "c": 70})


def test_demand_above_fair_share_is_cut_to_the_share() -> None:
    # a wants 60 of 100 shared with b (unlimited): both get 50
    assert max_min_fair({"L": 100.0}, {"a": ["L"], "b": ["L"]}, {"a": 60}) == pytest.approx({"a": 50, "b": 50})


def test_parking_lot() -> None:
    # links A-B, B-C, C-D of 139.968; long crosses all; bc1, bc2 on B-C only; ab, cd on their own
    cap = 0.9 * 155.52
    caps = {"AB": cap, "BC": cap, "CD": cap}
    paths = {"long": ["AB", "BC", "CD"], "ab": ["AB"], "bc1": ["BC"], "bc2": ["BC"], "cd": ["CD"]}
    r = max_min_fair(caps, paths)
    assert r["long"] == pytest.approx(cap / 3) and r["bc1"] == pytest.approx(cap / 3)
    assert r["ab"] == pytest.approx(2 * cap / 3) and r["cd"] == pytest.approx(2 * cap / 3)


def test_classic_two_link_example() -> None:
    # Bertsekas & Gallager style: link 1 (cap 1) carries 0, 1, 2; link 2 (cap 1) carries 0 and 3;
    # link 1 fills first at 1/3 each; then 3 takes what is left on link 2: 2/3
    r = max_min_fair({"1": 1.0, "2": 1.0}, {"c0": ["1", "2"], "c1": ["1"], "c2": ["1"], "c3": ["2"]})
    assert r == pytest.approx({"c0": 1 / 3, "c1": 1 / 3, "c2": 1 / 3, "c3": 2 / 3})


def test_seed003_fairness_configuration() -> None:
    # Figure 5 of seed 003: 15 connections of 10 Mb/s demand on Sw1->Sw2; c1 continues over
    # Sw2->Sw3 with c16, c17 (unlimited). Target 0.9 x 155.52 = 139.968 per link.
    cap = 0.9 * 155.52
    paths = {f"c{k}": ["12"] for k in range(2, 16)} | {"c1": ["12", "23"], "c16": ["23"], "c17": ["23"]}
    demands = {f"c{k}": 10.0 for k in range(1, 16)}
    r = max_min_fair({"12": cap, "23": cap}, paths, demands)
    assert r["c1"] == pytest.approx(139.968 / 15)  # 9.3312: 150 > 139.968, so all 15 are cut
    assert r["c2"] == pytest.approx(9.3312)
    assert r["c16"] == pytest.approx((139.968 - 9.3312) / 2)  # 65.3184
    assert r["c17"] == pytest.approx(65.3184)
    # with a larger first link the 10 Mb/s demands are met and c16, c17 share the rest
    r = max_min_fair({"12": 200.0, "23": cap}, paths, demands)
    assert r["c1"] == pytest.approx(10.0) and r["c16"] == pytest.approx((cap - 10) / 2)


def test_zero_demand_and_bad_input() -> None:
    assert max_min_fair({"L": 10.0}, {"a": ["L"], "b": ["L"]}, {"a": 0.0}) == pytest.approx({"a": 0, "b": 10})
    with pytest.raises(ValueError, match="unknown link"):
        max_min_fair({"L": 10.0}, {"a": ["M"]})
    with pytest.raises(ValueError, match="no demand limit"):
        max_min_fair({"L": 10.0}, {"a": []})
    with pytest.raises(ValueError, match="unknown connection"):
        max_min_fair({"L": 10.0}, {"a": ["L"]}, {"b": 1.0})
    assert max_min_fair({"L": 10.0}, {"a": []}, {"a": 3.0}) == {"a": 3.0}
    assert math.isclose(max_min_fair({"L": 0.0}, {"a": ["L"]})["a"], 0.0)
