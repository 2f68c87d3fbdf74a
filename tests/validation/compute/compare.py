#!/usr/bin/env python3
"""Compares costline's predicted computation times with the measured ones (compute validation).

    python3 compare.py ROWS.tsv --out-dir DIR [--header TEXT] [--gate]

ROWS.tsv is written by run.sh (tab-separated, one header line): suite, id, unit, source,
tag, level, n, ws_bytes, capped, params, measured_s, spread, report_json, vec_file, note.
The prediction of a row is `metrics.time_s` of the unit named `unit` in the JSON report of
`costline check --format json` (seconds per call); costline's own caveats (the report's
`complete: false`, diagnostics such as unknown trip counts) go to the note column. The
vectorization verdict comes from gfortran's -fopt-info-vec-all output for the kernel
file: `yes` when every innermost DO loop was vectorized, `partial` when some loop or a
basic block (SLP) was, `no` otherwise, with the widest vector size in bytes.

Writes DIR/table.md (per row: kernel, suite, n, level, working set, predicted and measured
microseconds, error % = (pred - meas)/meas, vectorized, note), DIR/summary.md (the
statistics below) and DIR/results.json (everything, per loop vectorization included), and
prints the table and the summary.

Summary: random kernels -- the fraction within 25 % and the median |error| over the
cache-resident rows (L1-L3), the fraction of memory-resident (DRAM) rows within 35 %;
Livermore -- how many of the 24 loops are within 30 % at their standard length (and per
level at the other sizes); BLAS/stencil -- the same as random; each split by vectorized
(yes/partial) vs not; the rows with the largest errors.

With --timings (run.sh's timings/ directory) and two rounds or more (run.sh --rounds),
also how often the first two rounds of the same binaries agree within 25 %: the noise of the
measurement itself, an upper bound on what any model can reach on this machine.

Exit status: 0, or with --gate 1 when a criterion is missed: >= 90 % of the cache-resident
random rows within 25 % and their median |error| <= 10 %; every DRAM random row within
35 % (--dram-fraction to relax); all 24 Livermore loops within 30 % at their standard length;
for each pair of the pairs suite (a loop with a carried dependence and the same operations
vectorized), the ratio of the predicted times within 25 % of the measured ratio.
A row without a prediction or a measurement counts as a miss. Standard library only.
"""

import argparse
import csv
import json
import math
import os
import re
import statistics
import sys

CACHE_LEVELS = ("L1", "L2", "L3")
LEVEL_ORDER = {"L1": 0, "L2": 1, "L3": 2, "DRAM": 3}
SUITES = ("random", "livermore", "blas_stencil", "pairs")


# ---------------------------------------------------------------------------------------
# inputs

def prediction(report_path, unit):
    """(seconds or None, [notes])."""
    if not report_path or not os.path.exists(report_path):
        return None, ["no costline report"]
    try:
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        return None, [f"unreadable costline report ({e.__class__.__name__})"]
    files = report.get("files") or []
    if not files:
        return None, ["costline report has no files"]
    notes = []
    for d in files[0].get("diagnostics") or []:
        if d.get("severity") in ("warning", "error", "info"):
            code = d.get("code") or d.get("severity")
            text = f"{code} (line {d.get('line')})"
            if d.get("severity") == "error":
                text = "error: " + d.get("message", code)[:120]
            if text not in notes:
                notes.append(text)
    for u in files[0].get("units", []):
        if u.get("name", "").lower() == unit.lower():
            m = u.get("metrics") or {}
            if m.get("complete") is False:
                notes.insert(0, "costline: incomplete")
            t = m.get("time_s")
            if isinstance(t, (int, float)) and math.isfinite(t):
                return float(t), notes
            return None, ["no metrics.time_s"] + notes
    return None, [f"no unit `{unit}` in the report"] + notes


DO_RE = re.compile(r"^\s*(?:\d+\s+)?(?:[a-z_]\w*\s*:\s*)?do\b(?!\s*=)", re.I)
END_DO_RE = re.compile(r"^\s*(?:\d+\s+)?end\s*do\b", re.I)


def do_loops(source):
    """[(line, innermost)] of the DO loops of a free-form file (block DO ... END DO)."""
    loops, stack = [], []
    try:
        with open(source, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError:
        return []
    for no, line in enumerate(lines, 1):
        code = line.split("!")[0]
        if DO_RE.match(code):
            rec = {"line": no, "innermost": True}
            for outer in stack:
                outer["innermost"] = False
            stack.append(rec)
            loops.append(rec)
        elif END_DO_RE.match(code) and stack:
            stack.pop()
    return [(r["line"], r["innermost"]) for r in loops]


VEC_RE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):\d+: (?P<kind>optimized|missed|note): (?P<msg>.*)$")


def vectorization(vec_file, source):
    """{'verdict': yes/no/partial/?, 'bytes': int or None, 'loops': [...]} from -fopt-info-vec-all."""
    if not vec_file or not os.path.exists(vec_file):
        return {"verdict": "?", "bytes": None, "loops": [], "slp": []}
    base = os.path.basename(source)
    vec, missed, slp = {}, set(), []
    with open(vec_file, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = VEC_RE.match(line.strip())
            if not m or os.path.basename(m["file"]) != base:
                continue
            ln, msg = int(m["line"]), m["msg"]
            b = re.search(r"using (\d+) byte vectors", msg)
            if m["kind"] == "optimized" and msg.startswith("loop vectorized") and b:
                vec[ln] = max(vec.get(ln, 0), int(b[1]))
            elif m["kind"] == "optimized" and "basic block" in msg and b:
                slp.append({"line": ln, "bytes": int(b[1])})
            elif m["kind"] == "missed" and msg.startswith("couldn't vectorize loop"):
                missed.add(ln)
    loops = [{"line": ln, "innermost": inner, "vectorized": ln in vec, "bytes": vec.get(ln)}
             for ln, inner in do_loops(source)]
    inner = [l for l in loops if l["innermost"]]
    widths = [l["bytes"] for l in loops if l["bytes"]] or [s["bytes"] for s in slp]
    if inner and all(l["vectorized"] for l in inner):
        verdict = "yes"
    elif vec or slp:
        verdict = "partial"
    else:
        verdict = "no"
    return {"verdict": verdict, "bytes": max(widths) if widths else None, "loops": loops, "slp": slp}


# ---------------------------------------------------------------------------------------
# statistics

def stats(rows, tol):
    """{'rows', 'compared', 'within', 'median_abs', 'median_signed'} over rows (None err = miss)."""
    errs = [r["error"] for r in rows if r["error"] is not None]
    within = sum(1 for e in errs if abs(e) <= tol)
    return {"rows": len(rows), "compared": len(errs), "within": within, "tol": tol,
            "fraction": within / len(rows) if rows else None,
            "median_abs": statistics.median(abs(e) for e in errs) if errs else None,
            "median_signed": statistics.median(errs) if errs else None}


def fmt_stats(s):
    if not s["rows"]:
        return "no rows"
    out = f"{s['within']}/{s['rows']} within {s['tol']:.0%} ({s['fraction']:.0%})"
    if s["median_abs"] is not None:
        out += f", median |error| {s['median_abs']:.0%}, median error {s['median_signed']:+.0%}"
    if s["compared"] < s["rows"]:
        out += f", {s['rows'] - s['compared']} without prediction or measurement"
    return out


def is_vec(r):
    return r["vec"]["verdict"] in ("yes", "partial")


def repeatability(timings_dir, rows, tol):
    """How far the same binary's timings move from one round to the next (run.sh --rounds
    R >= 2): per row, each round's mean over the code placements
    (timings/ID-N.ROUND.PLACEMENT.txt), and the ratio of its first two rounds. The noise
    of the oracle itself: no model can agree with a measurement more often than two
    measurements agree with each other. None without two rounds."""
    if not os.path.isdir(timings_dir):
        return None
    per_row = {}
    for name in os.listdir(timings_dir):
        m = re.match(r"(.+)-(\d+)\.(\d+)\.(\d+)\.txt$", name)
        if not m:
            continue
        with open(os.path.join(timings_dir, name), encoding="utf-8", errors="replace") as f:
            t = next((float(l.split()[1]) for l in f if l.startswith("seconds_per_call")), None)
        if t:
            key = (m.group(1), int(m.group(2)))
            per_row.setdefault(key, {}).setdefault(int(m.group(3)), []).append(t)
    diffs = {}
    for key, rounds in per_row.items():
        means = [sum(v) / len(v) for _, v in sorted(rounds.items())]
        if len(means) >= 2:
            diffs[key] = means[1] / means[0] - 1
    if not diffs:
        return None
    out = {}
    for label, pick in (("cache", lambda r: r["level"] in CACHE_LEVELS), ("dram", lambda r: r["level"] == "DRAM")):
        d = [abs(diffs[(r["id"], r["n"])]) for r in rows if pick(r) and (r["id"], r["n"]) in diffs]
        if d:
            out[label] = {"rows": len(d), "within": sum(1 for x in d if x <= tol),
                          "median_abs": statistics.median(d)}
    return out


def pair_ratios(rows, tol):
    """The pairs suite: each kernel whose manifest entry names `pair_of` (a loop with a
    carried dependence, not vectorized) against that kernel (the same operations,
    vectorized): the ratio of their measured times, of their predicted times, and the
    error of the predicted ratio. [{pair, measured, predicted, error, within}]."""
    out = []
    manifests = {}
    by_id = {(r["id"], r["n"]): r for r in rows if r["suite"] == "pairs"}
    for r in by_id.values():
        path = os.path.join(os.path.dirname(r["source"]), "manifest.json")
        if path not in manifests:
            with open(path, encoding="utf-8") as f:
                manifests[path] = {k["id"]: k for k in json.load(f)["kernels"]}
        other = manifests[path].get(r["id"], {}).get("pair_of")
        o = by_id.get((other, r["n"])) if other else None
        if not o:
            continue
        ok = all(x[k] for x in (r, o) for k in ("measured_s", "predicted_s"))
        measured = r["measured_s"] / o["measured_s"] if ok else None
        predicted = r["predicted_s"] / o["predicted_s"] if ok else None
        err = predicted / measured - 1 if ok else None
        out.append({"pair": f"{r['id']}/{o['id']}", "n": r["n"], "measured": measured, "predicted": predicted,
                    "error": err, "within": err is not None and abs(err) <= tol,
                    "vectorized": [is_vec(o), is_vec(r)]})
    return sorted(out, key=lambda p: p["pair"])


def human_bytes(b):
    b = float(b)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rows")
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--header", default="")
    ap.add_argument("--gate", action="store_true")
    ap.add_argument("--cache-tol", type=float, default=0.25)
    ap.add_argument("--cache-fraction", type=float, default=0.90)
    ap.add_argument("--cache-median", type=float, default=0.10)
    ap.add_argument("--dram-tol", type=float, default=0.35)
    ap.add_argument("--dram-fraction", type=float, default=1.0)
    ap.add_argument("--livermore-tol", type=float, default=0.30)
    ap.add_argument("--timings", default="", help="run.sh's timings/ directory (for the round-to-round noise)")
    args = ap.parse_args()

    with open(args.rows, encoding="utf-8", newline="") as f:
        raw = list(csv.DictReader(f, delimiter="\t"))
    rows = []
    vec_cache = {}
    for r in raw:
        measured = float(r["measured_s"]) if r["measured_s"] not in ("", "n/a") else None
        pred, pnotes = prediction(r["report_json"], r["unit"])
        if r["id"] not in vec_cache:
            vec_cache[r["id"]] = vectorization(r["vec_file"], r["source"])
        vec = vec_cache[r["id"]]
        err = (pred - measured) / measured if (pred is not None and measured) else None
        notes = [x for x in [r.get("note", "")] + pnotes if x]
        if measured is None:
            notes.insert(0, "no measurement")
        if r["capped"] == "1":
            notes.append(f"n capped for a short call (target {r['tag']})")
        side = os.path.splitext(r["source"])[0] + ".json"  # a random kernel's sidecar
        feats = []
        if r["suite"] == "random" and os.path.exists(side):
            with open(side, encoding="utf-8") as f:
                k = json.load(f)
            feats = [f"depth {k['depth']}", k["type"]] + k.get("features", [])
        rows.append({"suite": r["suite"], "id": r["id"], "unit": r["unit"], "source": r["source"],
                     "n": int(r["n"]), "features": feats,
                     "tag": r["tag"], "level": r["level"], "ws_bytes": int(r["ws_bytes"]),
                     "params": r["params"], "predicted_s": pred, "measured_s": measured,
                     "spread": r.get("spread", ""), "error": err, "vec": vec, "notes": notes})

    # ---- the table ----
    head = ["kernel", "suite", "n", "level", "working set", "predicted µs", "measured µs", "error %",
            "vectorized", "note"]
    table = []
    for r in rows:
        lvl = r["level"] if r["tag"] == r["level"] else f"{r['level']} ({r['tag']})"
        v = r["vec"]
        vtxt = v["verdict"] + (f", {v['bytes']}B" if v["bytes"] else "")
        table.append([r["id"], r["suite"], str(r["n"]), lvl, human_bytes(r["ws_bytes"]),
                      f"{r['predicted_s'] * 1e6:.4g}" if r["predicted_s"] is not None else "n/a",
                      f"{r['measured_s'] * 1e6:.4g}" if r["measured_s"] is not None else "n/a",
                      f"{r['error'] * 100:+.1f}" if r["error"] is not None else "n/a",
                      vtxt, "; ".join(r["notes"])])
    widths = [max([len(h)] + [len(t[i]) for t in table]) for i, h in enumerate(head)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    if args.header:
        print(args.header)
    print(line(head))
    print(line(["-" * w for w in widths]))
    for t in table:
        print(line(t))

    # ---- the summary ----
    S = []
    results = {"header": args.header, "summary": {}}
    by = lambda suite: [r for r in rows if r["suite"] == suite]

    def block(title, rs, key):
        cache = [r for r in rs if r["level"] in CACHE_LEVELS and r["tag"] != "std"]
        dram = [r for r in rs if r["level"] == "DRAM"]
        out = {"cache": stats(cache, args.cache_tol), "dram": stats(dram, args.dram_tol), "levels": {},
               "vectorized": {"cache": stats([r for r in cache if is_vec(r)], args.cache_tol),
                              "dram": stats([r for r in dram if is_vec(r)], args.dram_tol)},
               "not_vectorized": {"cache": stats([r for r in cache if not is_vec(r)], args.cache_tol),
                                  "dram": stats([r for r in dram if not is_vec(r)], args.dram_tol)}}
        S.append(f"{title} ({len({r['id'] for r in rs})} kernels, {len(rs)} rows)")
        S.append(f"  cache-resident (L1-L3): {fmt_stats(out['cache'])}")
        S.append(f"  memory-resident (DRAM): {fmt_stats(out['dram'])}")
        for lvl in ("L1", "L2", "L3", "DRAM"):
            lr = [r for r in rs if r["level"] == lvl and r["tag"] != "std"]
            if lr:
                tol = args.dram_tol if lvl == "DRAM" else args.cache_tol
                out["levels"][lvl] = stats(lr, tol)
                S.append(f"    {lvl}: {fmt_stats(out['levels'][lvl])}")
        for name in ("vectorized", "not_vectorized"):
            label = "vectorized (yes/partial)" if name == "vectorized" else "not vectorized"
            S.append(f"  {label}: cache-resident {fmt_stats(out[name]['cache'])}; DRAM {fmt_stats(out[name]['dram'])}")
        results["summary"][key] = out
        return out

    rnd = block("Random kernels", by("random"), "random")
    feats = {}
    for r in by("random"):
        for ft in r["features"]:
            feats.setdefault(ft, []).append(r)
    if feats:
        S.append("  by feature (kernels: median error cache-resident | DRAM):")
        fs = {}
        for ft, rs in sorted(feats.items()):
            c = stats([r for r in rs if r["level"] in CACHE_LEVELS], args.cache_tol)
            d = stats([r for r in rs if r["level"] == "DRAM"], args.dram_tol)
            fs[ft] = {"cache": c, "dram": d}
            med = lambda x: f"{x['median_signed']:+.0%}" if x["median_signed"] is not None else "-"
            S.append(f"    {ft:<24} {len({r['id'] for r in rs}):>3}: {med(c):>6} | {med(d):>6}")
        results["summary"]["random_by_feature"] = fs
    S.append("")
    lv = by("livermore")
    std = [r for r in lv if r["tag"] == "std"]
    lstd = stats(std, args.livermore_tol)
    lother = stats([r for r in lv if r["tag"] != "std"], args.livermore_tol)
    S.append(f"Livermore loops ({len({r['id'] for r in lv})} kernels, {len(lv)} rows)")
    S.append(f"  standard length: {fmt_stats(lstd)} (of 24 loops: {len(std)} measured)")
    bad = [f"{r['id']} {r['error'] * 100:+.0f}%" if r["error"] is not None else f"{r['id']} n/a"
           for r in sorted(std, key=lambda r: -abs(r["error"]) if r["error"] is not None else -1e9)
           if r["error"] is None or abs(r["error"]) > args.livermore_tol]
    if bad:
        S.append(f"    outside {args.livermore_tol:.0%}: {', '.join(bad)}")
    S.append(f"  other sizes: {fmt_stats(lother)}")
    lvl_stats = {}
    for lvl in ("L1", "L2", "L3", "DRAM"):
        lr = [r for r in lv if r["level"] == lvl and r["tag"] != "std"]
        if lr:
            lvl_stats[lvl] = stats(lr, args.livermore_tol)
            S.append(f"    {lvl}: {fmt_stats(lvl_stats[lvl])}")
    lvec = {"vectorized": stats([r for r in std if is_vec(r)], args.livermore_tol),
            "not_vectorized": stats([r for r in std if not is_vec(r)], args.livermore_tol)}
    S.append(f"  standard length, vectorized (yes/partial): {fmt_stats(lvec['vectorized'])}; "
             f"not vectorized: {fmt_stats(lvec['not_vectorized'])}")
    results["summary"]["livermore"] = {"standard": lstd, "other": lother, "levels": lvl_stats, **lvec}
    S.append("")
    block("BLAS/stencil", by("blas_stencil"), "blas_stencil")
    S.append("")
    pairs = pair_ratios(rows, args.cache_tol)
    if pairs:
        S.append("Pairs (a carried dependence over the same operations vectorized; time ratio measured "
                 "and predicted):")
        for p in pairs:
            if p["error"] is None:
                S.append(f"  {p['pair']:<10} n={p['n']}: n/a")
                continue
            S.append(f"  {p['pair']:<10} n={p['n']}: measured {p['measured']:.2f}x, predicted "
                     f"{p['predicted']:.2f}x ({p['error'] * 100:+.0f}%); gfortran vectorized "
                     f"{'the second' if p['vectorized'][0] else 'NOT the second'}"
                     f"{', and the first too' if p['vectorized'][1] else ''}")
        results["summary"]["pairs"] = pairs
        S.append("")
    allr = [r for r in rows]
    pooled = {"vectorized": {"cache": stats([r for r in allr if is_vec(r) and r["level"] in CACHE_LEVELS], args.cache_tol),
                             "dram": stats([r for r in allr if is_vec(r) and r["level"] == "DRAM"], args.dram_tol)},
              "not_vectorized": {"cache": stats([r for r in allr if not is_vec(r) and r["level"] in CACHE_LEVELS], args.cache_tol),
                                 "dram": stats([r for r in allr if not is_vec(r) and r["level"] == "DRAM"], args.dram_tol)}}
    nvec = len({r["id"] for r in allr if is_vec(r)})
    S.append(f"All suites, by gfortran's verdict ({nvec} of {len({r['id'] for r in allr})} kernels vectorized at least partly)")
    S.append(f"  vectorized: cache-resident {fmt_stats(pooled['vectorized']['cache'])}; DRAM {fmt_stats(pooled['vectorized']['dram'])}")
    S.append(f"  not vectorized: cache-resident {fmt_stats(pooled['not_vectorized']['cache'])}; DRAM {fmt_stats(pooled['not_vectorized']['dram'])}")
    results["summary"]["all_by_vectorization"] = pooled

    worst = sorted([r for r in rows if r["error"] is not None], key=lambda r: -abs(r["error"]))[:15]
    S.append("")
    S.append("Largest errors:")
    for r in worst:
        v = r["vec"]
        S.append(f"  {r['id']:<12} n={r['n']:<9} {r['level']:<4} {r['error'] * 100:+7.0f}%  "
                 f"pred {r['predicted_s'] * 1e6:.4g} µs, meas {r['measured_s'] * 1e6:.4g} µs; vectorized "
                 f"{v['verdict']}{', %dB' % v['bytes'] if v['bytes'] else ''}"
                 f"{'; ' + '; '.join(r['notes']) if r['notes'] else ''}")
    noise = repeatability(args.timings, rows, args.cache_tol) if args.timings else None
    if noise:
        S.append("")
        S.append("Round to round (the same binaries timed twice: the measurement's own noise, all suites):")
        for label, name in (("cache", "cache-resident"), ("dram", "memory-resident")):
            if label in noise:
                n = noise[label]
                S.append(f"  {name}: {n['within']}/{n['rows']} rows agree within {args.cache_tol:.0%} "
                         f"({n['within'] / n['rows']:.0%}), median |difference| {n['median_abs']:.0%}")
        results["summary"]["round_to_round"] = noise
    missing = [r for r in rows if r["error"] is None]
    if missing:
        S.append("Rows without a prediction or measurement: "
                 + ", ".join("{} n={}".format(r["id"], r["n"]) for r in missing))

    # ---- the gate ----
    checks = []
    rc, rd = rnd["cache"], rnd["dram"]
    checks.append((f"random cache-resident within {args.cache_tol:.0%} >= {args.cache_fraction:.0%}",
                   rc["rows"] > 0 and rc["fraction"] >= args.cache_fraction))
    checks.append((f"random cache-resident median |error| <= {args.cache_median:.0%}",
                   rc["median_abs"] is not None and rc["median_abs"] <= args.cache_median))
    checks.append((f"random DRAM within {args.dram_tol:.0%} >= {args.dram_fraction:.0%}",
                   rd["rows"] == 0 or rd["fraction"] >= args.dram_fraction))
    checks.append((f"all 24 Livermore loops within {args.livermore_tol:.0%} at the standard length",
                   lstd["within"] == 24))
    if pairs:
        checks.append((f"vectorized/not vectorized time ratios within {args.cache_tol:.0%}",
                       all(p["within"] for p in pairs)))
    S.append("")
    S.append("Criteria: " + "; ".join(f"{name}: {'pass' if ok else 'MISS'}" for name, ok in checks))
    results["criteria"] = [{"criterion": name, "pass": ok} for name, ok in checks]

    print()
    print("\n".join(S))
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "table.md"), "w", encoding="utf-8") as f:
        if args.header:
            f.write(args.header + "\n\n")
        f.write("| " + " | ".join(head) + " |\n")
        f.write("|" + "|".join("--:" if i in (2, 5, 6, 7) else "---" for i in range(len(head))) + "|\n")
        for t in table:
            f.write("| " + " | ".join(c.replace("|", "\\|") for c in t) + " |\n")
        f.write("\n```\n" + "\n".join(S) + "\n```\n")
    with open(os.path.join(args.out_dir, "summary.md"), "w", encoding="utf-8") as f:
        if args.header:
            f.write(args.header + "\n\n")
        f.write("```\n" + "\n".join(S) + "\n```\n")
    results["rows"] = rows
    with open(os.path.join(args.out_dir, "results.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    print(f"\ntable: {os.path.join(args.out_dir, 'table.md')}; summary.md and results.json beside it")
    if args.gate and not all(ok for _, ok in checks):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
