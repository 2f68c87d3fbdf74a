#!/usr/bin/env python3
"""Compares costline's predictions with the measured times (issue 7's accuracy table).

    python3 tests/validation/compare.py ROWS.tsv TABLE.md [--tolerance 0.25]

ROWS.tsv (written by run.sh, tab-separated, one header line):
    kernel  n  unit  working_set_bytes  measured_s  report_json  note
`report_json` is the output of `costline check --format json` for the kernel's file; the
prediction is `metrics.time_s` of the unit named `unit` in `files[0].units` (predicted
seconds for one call of that subroutine, the critical path over the processors). A
missing report, unit or field gives "n/a".

Prints the table, writes it (Markdown) to TABLE.md and exits 1 when a prediction is off
by more than the tolerance or missing, 0 otherwise. Standard library only.
"""

import argparse
import csv
import json
import math
import sys


def prediction(report_path, unit):
    """(seconds or None, why-not)."""
    if not report_path:
        return None, "no report"
    try:
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        return None, f"unreadable report ({e.__class__.__name__})"
    files = report.get("files") or []
    if not files:
        return None, "report has no files"
    for u in files[0].get("units", []):
        if u.get("name", "").lower() == unit.lower():
            t = (u.get("metrics") or {}).get("time_s")
            if isinstance(t, (int, float)) and math.isfinite(t):
                return float(t), ""
            return None, "no metrics.time_s"
    return None, f"no unit `{unit}`"


def human_bytes(b):
    if not b:
        return "?"
    b = float(b)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows")
    ap.add_argument("table")
    ap.add_argument("--tolerance", type=float, default=0.25)
    ap.add_argument("--header", default="", help="a line printed above the table")
    ap.add_argument("--gate-max-bytes", type=float, default=float("inf"),
                    help="rows with a larger working set are reported, not gated")
    args = ap.parse_args()

    with open(args.rows, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))

    head = ["kernel", "n", "working set", "predicted (s)", "measured (s)", "error %", "note"]
    table, failures, missing = [], [], []
    for r in rows:
        measured = float(r["measured_s"]) if r["measured_s"] not in ("", "n/a") else None
        pred, why = prediction(r["report_json"], r["unit"])
        notes = [x for x in (r.get("note", ""), why) if x]
        err = None
        if pred is not None and measured:
            err = (pred - measured) / measured
        gated = float(r["working_set_bytes"]) <= args.gate_max_bytes
        if not gated:
            notes.insert(0, "memory-resident: reported, not gated")
        if err is None:
            if gated:
                missing.append(r)
        elif abs(err) > args.tolerance:
            notes.insert(0, f"> {args.tolerance:.0%}")
            if gated:
                failures.append(r)
        table.append([
            r["kernel"],
            r["n"],
            human_bytes(r["working_set_bytes"]),
            f"{pred:.3e}" if pred is not None else "n/a",
            f"{measured:.3e}" if measured is not None else "n/a",
            f"{err * 100:+.1f}" if err is not None else "n/a",
            "; ".join(notes),
        ])

    widths = [max(len(h), *(len(t[i]) for t in table)) if table else len(h)
              for i, h in enumerate(head)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    if args.header:
        print(args.header)
    print(line(head))
    print(line(["-" * w for w in widths]))
    for t in table:
        print(line(t))

    with open(args.table, "w", encoding="utf-8") as f:
        if args.header:
            f.write(args.header + "\n\n")
        f.write("| " + " | ".join(head) + " |\n")
        f.write("|" + "|".join("---" if i in (0, 2, 6) else "--:" for i in range(len(head))) + "|\n")
        for t in table:
            f.write("| " + " | ".join(c.replace("|", "\\|") for c in t) + " |\n")

    compared = len(table) - len(missing)
    print(f"\n{compared} of {len(table)} rows compared; {len(failures)} off by more than "
          f"{args.tolerance:.0%}; {len(missing)} without a prediction or measurement")
    print(f"table written to {args.table}")
    return 1 if failures or missing else 0


if __name__ == "__main__":
    sys.exit(main())
