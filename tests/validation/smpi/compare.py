"""Predicted (costline's per-rank MPI records) against simulated (SMPI + the PMPI
counter) for every run of run.sh; prints the table and writes it to table.md.

Usage: python3 compare.py RUNS_DIR [all|counts] [TOLERANCE] [TABLE]
  (RUNS_DIR: the directory run.sh fills for one network; TABLE: where to write the
  table, default RUNS_DIR/table.md)
Exit status 1 when a per-rank count differs, or the Jacobi decompositions are ranked
differently, or (gate `all`) a communication time is off by more than TOLERANCE
(default 0.15)."""

import json
import os
import sys

# Two times closer than this are a tie when ranking decompositions.
TIE = 0.02
FIELDS = [
    ("sends", "sends"),
    ("send_bytes", "send_bytes"),
    ("recvs", "recvs"),
    ("recv_bytes", "recv_bytes"),
    ("collectives", "colls"),
    ("collective_bytes", "coll_bytes"),
]


def simulated(path):
    ranks = {}
    for line in open(path):
        fields = dict(kv.split("=") for kv in line.split()[1:])
        ranks[int(fields["rank"])] = {k: float(v) for k, v in fields.items()}
    return ranks


def predicted(path):
    """The main program's run on every process (`mpi_run`), else its own calls'
    per-rank records (`mpi_ranks`)."""
    report = json.load(open(path))
    for f in report["files"]:
        for u in f["units"]:
            if u["kind"] == "program" and u["name"] != "main":
                return u.get("mpi_run") or u.get("mpi_ranks")
    return None


def order(times):
    """The names sorted by time, ties (within TIE) grouped."""
    names = sorted(times, key=times.get)
    groups = []
    for n in names:
        if groups and times[n] <= times[groups[-1][0]] * (1 + TIE):
            groups[-1].append(n)
        else:
            groups.append([n])
    return [sorted(g) for g in groups]


def main():
    out = sys.argv[1]
    gate = sys.argv[2] if len(sys.argv) > 2 else "all"
    tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 0.15
    table_path = sys.argv[4] if len(sys.argv) > 4 else os.path.join(out, "table.md")
    runs = [line.rstrip("\n").split("\t") for line in open(os.path.join(out, "index.tsv"))]
    rows = []
    failures = []
    jacobi = {}
    for name, program, ranks, params in runs:
        d = os.path.join(out, name)
        sim = simulated(os.path.join(d, "simulated.txt"))
        pred = predicted(os.path.join(d, "predicted.json"))
        sim_time = max(r["time"] for r in sim.values())
        if not pred or not pred.get("ranks"):
            note = (pred or {}).get("note", "no per-rank records")
            rows.append((name, ranks, "no", "-", f"{sim_time * 1e6:.2f}", "-", note))
            failures.append(f"{name}: {note}")
            continue
        wrong = []
        for r in pred["ranks"]:
            s = sim.get(r["rank"])
            for mine, theirs in FIELDS:
                if s is None or abs(r[mine] - s[theirs]) > 1e-6 * max(1.0, s[theirs]):
                    got = "-" if s is None else s[theirs]
                    wrong.append(f"rank {r['rank']} {mine} {r[mine]:g} vs {got:g}")
        if len(pred["ranks"]) != len(sim):
            wrong.append(f"{len(pred['ranks'])} ranks predicted, {len(sim)} simulated")
        pred_time = pred.get("time_s")
        error = (pred_time - sim_time) / sim_time if pred_time is not None else None
        counts = "yes" if not wrong else f"no ({len(wrong)})"
        note = "" if pred.get("complete") else "incomplete: " + "; ".join(
            (m["unit"] + ": " if m.get("unit") else "") + m["what"]
            for m in pred.get("missing", [])[:2])
        rows.append((name, ranks, counts,
                     "-" if pred_time is None else f"{pred_time * 1e6:.2f}",
                     f"{sim_time * 1e6:.2f}",
                     "-" if error is None else f"{error * 100:+.1f}%", note))
        failures.extend(f"{name}: {w}" for w in wrong[:4])
        if error is None or (gate == "all" and abs(error) > tolerance):
            failures.append(f"{name}: time {pred_time} vs {sim_time}")
        if program == "jacobi2d":
            size, shape = name.split("-")[1], name.split("-")[2]
            jacobi.setdefault((size, ranks), {})[shape] = (pred_time, sim_time)
    lines = ["| run | ranks | counts equal | predicted µs | simulated µs | error | note |",
             "|---|---|---|---|---|---|---|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    lines += ["", "| Jacobi | ranks | predicted order | simulated order | agree |", "|---|---|---|---|---|"]
    for (size, ranks), shapes in sorted(jacobi.items()):
        if any(p is None for p, _ in shapes.values()):
            continue
        mine = order({k: v[0] for k, v in shapes.items()})
        theirs = order({k: v[1] for k, v in shapes.items()})
        agree = mine == theirs
        if not agree:
            failures.append(f"jacobi2d {size} at {ranks} ranks: order {mine} vs {theirs}")
        show = lambda o: " < ".join("=".join(g) for g in o)
        lines.append(f"| {size} | {ranks} | {show(mine)} | {show(theirs)} | {'yes' if agree else 'no'} |")
    table = "\n".join(lines)
    print(table)
    with open(table_path, "w") as f:
        f.write(table + "\n")
    if failures:
        print("\n" + "\n".join(failures[:40]), file=sys.stderr)
        sys.exit(1)


main()
