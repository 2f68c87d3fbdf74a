#!/usr/bin/env python3
"""Writes a timing driver per kernel and the measurement plan of the compute validation.

    python3 gen_driver.py --out BUILD_DIR --plan PLAN.tsv [--quick] MANIFEST.json...

For every kernel of every manifest (gen_kernels.py's random manifests, livermore/ and
blas_stencil/manifest.json) writes BUILD_DIR/<id>/driver.f90, a program in the style of
tests/validation/driver.f90, for the kernel's own argument list:

    driver N [MIN_BATCH_SECONDS [BATCHES]]

binds the size argument n = N (and any other integer size argument from its expression in
n), allocates every array with its explicit shape, fills it with a bounded deterministic
pattern (the manifest's range [lo, hi] or expression, per-array strides so no two arrays
match), calls the kernel -- an external procedure compiled on its own with -c, declared by
an interface block, so the call is a real call -- once to warm up, doubles the calls per
batch until one batch lasts MIN_BATCH_SECONDS (default 0.05), then times BATCHES batches
(default 5) with system_clock and prints

    checksum C          the sum of every output array and scalar (keeps results alive)
    subnormals K        output elements that are subnormal (a slow-down source; should be 0)
    seconds_per_call T  the minimum over the batches of the time per call

PLAN.tsv gets one line per (kernel, size): suite, id, unit, source, driver, tag (L1, L2,
L3, DRAM, or std for a Livermore loop's standard length), level (where the working set
lives on this machine), n, working-set bytes, capped (1 when n was lowered to keep a call
short), params (`name=value` pairs for costline's --param, n first). --quick keeps the L1
and DRAM sizes (std and DRAM for the Livermore loops). Python 3 standard library only.
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_kernels import detect_caches, plan_sizes  # noqa: E402

PRIMES = [7919, 104729, 1299709, 15485863, 179424673, 2038074743, 6700417, 479001599,
          433494437, 99194853, 2147483629, 1073741789]


def ev_param(expr, n):
    return int(eval(expr, {"__builtins__": {}}, {"n": n}))


def decl(arg, shape=True):
    if arg["kind"] in ("size", "param"):
        return f"integer, intent(in) :: {arg['name']}"
    if arg["kind"] == "scalar":
        return f"{arg['type']}, intent({arg['intent']}) :: {arg['name']}"
    dims = ", ".join(arg["dims"]) if shape else ", ".join(":" for _ in arg["dims"])
    return f"{arg['type']}, intent({arg['intent']}) :: {arg['name']}({dims})"


def cont(line, width=110):
    """Free-form continuation after commas."""
    out = []
    while len(line) > width:
        cut = line.rfind(", ", 0, width)
        if cut < 0:
            break
        out.append(line[:cut + 1] + " &")
        line = "      " + line[cut + 2:]
    out.append(line)
    return out


def driver_source(k):
    unit, args = k["unit"], k["args"]
    names = [a["name"] for a in args]
    arrays = [a for a in args if a["kind"] == "array"]
    L = [f"! Timing driver for {unit} ({k['suite']} suite), written by tests/validation/compute/gen_driver.py.",
         "!   driver N [MIN_BATCH_SECONDS [BATCHES]]",
         "! The kernel is compiled separately (-c) and called through this interface: a real call.",
         "program driver",
         "  implicit none",
         "  interface"]
    L += cont(f"    subroutine {unit}({', '.join(names)})")
    for a in args:
        L.append("      " + decl(a))
    L += [f"    end subroutine {unit}", "  end interface"]
    ints = [a["name"] for a in args if a["kind"] in ("size", "param")]
    L.append(f"  integer :: {', '.join(ints)}")
    for a in arrays:
        L.append(f"  {a['type']}, allocatable :: {a['name']}({', '.join(':' for _ in a['dims'])})")
    for a in args:
        if a["kind"] == "scalar":
            L.append(f"  {a['type']} :: {a['name']}")
    L += ["  integer :: b_, batches_",
          "  integer(8) :: reps_, c0_, c1_, rate_, idx_, i1_, i2_, i3_, subnormal_",
          "  real(8) :: min_batch_, t_, best_, checksum_",
          "  character(len=64) :: arg_",
          "",
          "  if (command_argument_count() < 1) then",
          "    print '(a)', 'usage: driver N [MIN_BATCH_SECONDS [BATCHES]]'",
          "    stop 2",
          "  end if",
          "  call get_command_argument(1, arg_)",
          "  read (arg_, *) n",
          "  min_batch_ = 0.05d0",
          "  batches_ = 5",
          "  if (command_argument_count() >= 2) then",
          "    call get_command_argument(2, arg_)",
          "    read (arg_, *) min_batch_",
          "  end if",
          "  if (command_argument_count() >= 3) then",
          "    call get_command_argument(3, arg_)",
          "    read (arg_, *) batches_",
          "  end if",
          "  call system_clock(count_rate=rate_)"]
    for a in args:
        if a["kind"] == "param":
            L.append(f"  {a['name']} = {a['fortran']}")
        elif a["kind"] == "scalar":
            L.append(f"  {a['name']} = {a['value']}")
    # arrays: allocate and fill with a bounded deterministic pattern
    for ordinal, a in enumerate(arrays):
        name, rank = a["name"], len(a["dims"])
        L.append(f"  allocate ({name}({', '.join(a['dims'])}))")
        p, q = PRIMES[ordinal % len(PRIMES)], 131 * ordinal + 7
        init = a["init"]
        if "expr" in init:
            value = init["expr"]
            if a["type"] == "integer":
                value = f"int({value})"
        elif a["type"] == "integer":
            lo, hi = init["lo"], init["hi"]
            value = f"({lo}) + int(mod(idx_*{p}_8 + {q}_8, int(({hi}) - ({lo}) + 1, 8)))"
        else:
            lo, hi = init["lo"], init["hi"]
            value = f"({lo}) + (({hi}) - ({lo}))*dble(mod(idx_*{p}_8 + {q}_8, 1009_8))/1008.0d0"
            if a["type"] == "real(4)":
                value = f"real({value}, 4)"
        idx = ["i1_", "i2_", "i3_"][:rank]
        L.append("  idx_ = 0")
        ind = "  "
        for d in reversed(range(rank)):
            L.append(f"{ind}do {idx[d]} = 1, size({name}, {d + 1}, kind=8)")
            ind += "  "
        L.append(f"{ind}idx_ = idx_ + 1")
        L.append(f"{ind}{name}({', '.join(idx)}) = {value}")
        for d in range(rank):
            ind = ind[:-2]
            L.append(f"{ind}end do")
        for sub, val in a.get("fix", []):
            L.append(f"  {name}({sub}) = {val}")
    L += ["",
          "  ! warm up, then calibrate the calls per batch",
          "  call batch_(1_8)",
          "  reps_ = 1",
          "  do",
          "    call system_clock(c0_)",
          "    call batch_(reps_)",
          "    call system_clock(c1_)",
          "    if (dble(c1_ - c0_)/dble(rate_) >= min_batch_) exit",
          "    reps_ = reps_*2",
          "  end do",
          "  best_ = huge(1.0d0)",
          "  do b_ = 1, batches_",
          "    call system_clock(c0_)",
          "    call batch_(reps_)",
          "    call system_clock(c1_)",
          "    t_ = dble(c1_ - c0_)/dble(rate_)/dble(reps_)",
          "    best_ = min(best_, t_)",
          "  end do",
          "",
          "  checksum_ = 0.0d0",
          "  subnormal_ = 0"]
    for a in args:
        if a["kind"] == "array" and a["intent"] != "in":
            L.append(f"  checksum_ = checksum_ + sum(dble({a['name']}))")
            if a["type"] != "integer":
                L.append(f"  subnormal_ = subnormal_ + count({a['name']} /= 0 .and. abs({a['name']}) < tiny({a['name']}))")
        elif a["kind"] == "scalar" and a["intent"] != "in":
            L.append(f"  checksum_ = checksum_ + dble({a['name']})")
    L += ["  print '(a, i0, a, i0)', 'n ', n, ' calls_per_batch ', reps_",
          "  print '(a, es15.7)', 'checksum ', checksum_",
          "  print '(a, i0)', 'subnormals ', subnormal_",
          "  print '(a, es14.7)', 'seconds_per_call ', best_",
          "",
          "contains",
          "",
          "  subroutine batch_(r_)",
          "    integer(8), intent(in) :: r_",
          "    integer(8) :: q_",
          "    do q_ = 1, r_"]
    L += cont(f"      call {unit}({', '.join(names)})")
    L += ["    end do",
          "  end subroutine batch_",
          "end program driver"]
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("manifests", nargs="+")
    ap.add_argument("--out", required=True, help="build directory (a subdirectory per kernel)")
    ap.add_argument("--plan", required=True, help="the plan TSV to write")
    ap.add_argument("--quick", action="store_true", help="L1 and DRAM sizes only (std and DRAM for Livermore)")
    args = ap.parse_args()
    caches = detect_caches()
    rows = []
    for mpath in args.manifests:
        with open(mpath) as f:
            manifest = json.load(f)
        base = os.path.dirname(os.path.abspath(mpath))
        for k in manifest["kernels"]:
            kdir = os.path.join(os.path.abspath(args.out), k["id"])
            os.makedirs(kdir, exist_ok=True)
            drv = os.path.join(kdir, "driver.f90")
            with open(drv, "w") as f:
                f.write(driver_source(k))
            sizes = k.get("sizes") or plan_sizes(k, caches)
            if args.quick:
                keep = {"std", "DRAM"} if k.get("std_n") else {"L1", "DRAM"}
                sizes = [s for s in sizes if s["tag"] in keep]
            for s in sizes:
                params = [f"n={s['n']}"] + [f"{a['name']}={ev_param(a['python'], s['n'])}"
                                            for a in k["args"] if a["kind"] == "param"]
                rows.append([k["suite"], k["id"], k["unit"], os.path.join(base, k["file"]), drv,
                             s["tag"], s["level"], str(s["n"]), str(s["ws_bytes"]),
                             "1" if s.get("capped") else "0", " ".join(params)])
    with open(args.plan, "w") as f:
        f.write("suite\tid\tunit\tsource\tdriver\ttag\tlevel\tn\tws_bytes\tcapped\tparams\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    print(f"gen_driver: {len(rows)} measurements of {len({r[1] for r in rows})} kernels in {args.plan}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
