#!/usr/bin/env python3
"""Counts integer points with barvinok, for the formula oracle
(engine/db/tests/formula_barvinok.rs).

Reads one JSON object on stdin:
    {"params": ["n", "m"], "points": [[n, m], ...], "sets": ["[n, m] -> { [i1] : ... }", ...]}
and writes one on stdout:
    {"values": [["58", ...], ...], "cards": ["[n] -> { (-12 + 7 * n) : n >= 5; ... }", ...],
     "seconds": 1.23}
where values[s][p] is the number of points of set s at point p (isl's `card()`, a
piecewise quasi-polynomial, evaluated there), as a decimal string.
"""
import json
import sys
import time

import islpy as isl


def main():
    request = json.load(sys.stdin)
    params, points = request["params"], request["points"]
    start = time.perf_counter()
    values, cards = [], []
    for text in request["sets"]:
        card = isl.Set(text).card()
        space = card.get_domain_space()
        index = [space.find_dim_by_name(isl.dim_type.param, p) for p in params]
        row = []
        for point in points:
            pt = isl.Point.zero(space)
            for i, v in zip(index, point):
                if i >= 0:
                    pt = pt.set_coordinate_val(isl.dim_type.param, i, v)
            row.append(card.eval(pt).to_str())
        values.append(row)
        cards.append(card.to_str())
    json.dump(
        {"values": values, "cards": cards, "seconds": time.perf_counter() - start},
        sys.stdout,
    )


if __name__ == "__main__":
    main()
