#!/usr/bin/env python3
"""Generates random Fortran loop kernels for the held-out computation-time validation.

    python3 gen_kernels.py --seed S --count K --out DIR

Writes, deterministically for a given (seed, index) and independent of --count, the files
    DIR/k_s<S>_<II>.f90   one subroutine `k_s<S>_<II>(n, ...)`, written as a user would:
                          1-3 deep DO nest over n (bounds 1..n, 2..n, 1..n-1, 2..n-1),
                          1-3 assignments mixing loads and stores, + - * /, occasional
                          sqrt/abs/exp/max/min, unit, 2 and n strides (a(i,j) vs a(j,i),
                          a(2*i)), real(8)/real(4)/integer elements, scalar reductions
                          (returned through an intent(out)/(inout) argument) and loop-carried
                          recurrences (a(i) = a(i-1)*c + ...), explicit-shape dummy arrays
    DIR/k_s<S>_<II>.json  its sidecar (the same entry as in the manifest)
    DIR/manifest.json     {"suite": "random", "caches": ..., "targets": ..., "kernels": [...]}

A kernel entry: id, unit, file, args in order (kind size/array/scalar; arrays with type,
dims (Fortran expressions in n), intent and the initial value range the driver uses),
arrays (name, type, rank, role), depth, loops, working_set (bytes, a Python expression in
n), iterations, ns_per_iter (a rough cost guess used only to cap the sizes), features and
sizes: n per level chosen so the working set is a third of this machine's L1d, half of its
L2, a quarter of its L3 and four times L3 (`targets`), capped so one call takes well under
0.5 s.

Boundedness (no NaN/Inf/subnormal slow-downs when a kernel is called millions of times
on its own output): inputs are initialized in [1, 2] (integers in [1, 30]); the generator
tracks an interval for every expression and array and rejects or repairs a kernel whose
values could blow up, whose denominators could reach 0, or whose updates x = c*x + e could
decay towards 0 (e is kept away from 0); exp only ever sees an input load.

Disjoint from the fitting set (machines/training/kernels.f90): kernels with a single
statement, a single loop and fewer than two operators (the shape of every training
kernel) are never emitted. Python 3 standard library only. The sizing helpers
(`detect_caches`, `plan_sizes`, `classify`) are shared with gen_driver.py.
"""

import argparse
import json
import math
import os
import random
import sys

KIB = 1024
MIB = 1024 * 1024

# Working-set targets, from the running machine's caches: a third of L1d, half of L2, a
# quarter of L3 and four times L3 (`targets`).
# The caches assumed where /sys does not tell (the AMD EPYC VM the suite was first run on).
REFERENCE_CACHES = {"L1d": 48 * KIB, "L2": 1 * MIB, "L3": 32 * MIB}
CALL_BUDGET_S = 0.25  # the largest predicted-by-guess time of one call we let a size reach

INPUT_REAL = (1.0, 2.0)
INPUT_INT = (1, 30)


# ---------------------------------------------------------------------------------------
# sizing (shared with gen_driver.py)

def detect_caches():
    """{'L1d': bytes, 'L2': bytes, 'L3': bytes} from /sys (REFERENCE_CACHES on failure)."""
    caches = dict(REFERENCE_CACHES)
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for d in sorted(os.listdir(base)):
            if not d.startswith("index"):
                continue
            p = os.path.join(base, d)
            with open(os.path.join(p, "level")) as f:
                level = int(f.read())
            with open(os.path.join(p, "type")) as f:
                typ = f.read().strip()
            with open(os.path.join(p, "size")) as f:
                size = f.read().strip()
            mult = {"K": KIB, "M": MIB, "G": 1024 * MIB}.get(size[-1], 1)
            nbytes = int(size.rstrip("KMG")) * mult
            if level == 1 and typ == "Data":
                caches["L1d"] = nbytes
            elif level == 2 and typ != "Instruction":
                caches["L2"] = nbytes
            elif level == 3:
                caches["L3"] = nbytes
    except (OSError, ValueError):
        pass
    return caches


def targets(caches):
    """[(level, working-set bytes)]: a third of L1d, half of L2, a quarter of L3, four times
    L3 -- well inside each level, away from the capacity where the physical placement of
    pages decides whether the set fits."""
    return [("L1", caches["L1d"] // 3), ("L2", caches["L2"] // 2), ("L3", caches["L3"] // 4),
            ("DRAM", 4 * caches["L3"])]


def classify(ws_bytes, caches):
    """The level a working set lives in: L1 (<= 3/4 L1d), L2 (<= 3/4 L2), L3 (<= L3/2), DRAM."""
    if ws_bytes <= 0.75 * caches["L1d"]:
        return "L1"
    if ws_bytes <= 0.75 * caches["L2"]:
        return "L2"
    if ws_bytes <= 0.5 * caches["L3"]:
        return "L3"
    return "DRAM"


def _ev(expr, n):
    return float(eval(expr, {"__builtins__": {}}, {"n": n, "min": min, "max": max}))


def _search(pred, lo, hi=1 << 40):
    """Smallest n in [lo, hi] with pred(n) true (pred monotone), or hi."""
    if pred(lo):
        return lo
    step = 1
    while lo + step < hi and not pred(lo + step):
        step *= 2
    a, b = lo + step // 2, min(lo + step, hi)
    while a < b:
        mid = (a + b) // 2
        if pred(mid):
            b = mid
        else:
            a = mid + 1
    return a


def plan_sizes(kernel, caches, budget_s=CALL_BUDGET_S):
    """[{tag, n, ws_bytes, level, capped}] for the kernel's working-set targets (+ 'std')."""
    ws = kernel["working_set"]
    n_min = int(kernel.get("n_min", 4))
    iters = kernel.get("iterations", "n")
    ns = float(kernel.get("ns_per_iter", 2.0))
    call_s = lambda n: _ev(iters, n) * ns * 1e-9
    n_cap = _search(lambda n: call_s(n + 1) > budget_s, n_min) if call_s(n_min) <= budget_s else n_min
    out, seen = [], set()
    if kernel.get("std_n"):
        n = int(kernel["std_n"])
        b = int(_ev(ws, n))
        out.append({"tag": "std", "n": n, "ws_bytes": b, "level": classify(b, caches), "capped": False})
        seen.add(n)
    for tag, target in targets(caches):
        n = _search(lambda m: _ev(ws, m) >= target, n_min)
        if n > n_min and abs(math.log(_ev(ws, n - 1) / target)) < abs(math.log(_ev(ws, n) / target)):
            n -= 1
        capped = n > n_cap
        n = min(n, n_cap)
        if n in seen:
            continue
        seen.add(n)
        b = int(_ev(ws, n))
        out.append({"tag": tag, "n": n, "ws_bytes": b, "level": classify(b, caches), "capped": capped})
    return out


# ---------------------------------------------------------------------------------------
# intervals

class Iv:
    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi):
        self.lo, self.hi = float(min(lo, hi)), float(max(lo, hi))

    def __add__(self, o):
        return Iv(self.lo + o.lo, self.hi + o.hi)

    def __sub__(self, o):
        return Iv(self.lo - o.hi, self.hi - o.lo)

    def __mul__(self, o):
        p = [self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi]
        return Iv(min(p), max(p))

    def div(self, o):
        assert o.lo > 0 or o.hi < 0
        return self * Iv(1 / o.hi, 1 / o.lo)

    def abs(self):
        if self.lo >= 0:
            return Iv(self.lo, self.hi)
        if self.hi <= 0:
            return Iv(-self.hi, -self.lo)
        return Iv(0, max(-self.lo, self.hi))

    def hull(self, o):
        return Iv(min(self.lo, o.lo), max(self.hi, o.hi))

    def scale(self, c):
        return self * Iv(c, c)

    def mag(self):
        return max(abs(self.lo), abs(self.hi))

    def near_zero(self, eps):
        return self.lo < eps and self.hi > -eps


class Reject(Exception):
    pass


# ---------------------------------------------------------------------------------------
# kernel generation

TYPE_BYTES = {"real(8)": 8, "real(4)": 4, "integer": 4}
REAL_NAMES = list("abcdefghopqrtuvwxyz")
INT_NAMES = ["ia", "ib", "ic", "id", "ie", "ix", "ig", "ih", "ip", "iq", "ir", "iu", "iv", "iw"]


def lit(value, etype):
    if etype == "integer":
        return str(int(value))
    s = repr(float(value))
    if "e" in s:
        raise ValueError(s)
    return s + ("d0" if etype == "real(8)" else "")


class Array:
    def __init__(self, name, etype, dvars, stride2, role):
        self.name, self.etype, self.dvars, self.stride2, self.role = name, etype, dvars, stride2, role
        self.read = False
        self.iv = Iv(*INPUT_INT) if etype == "integer" else Iv(*INPUT_REAL)  # initial values

    @property
    def rank(self):
        return len(self.dvars)

    def dims(self):
        return ["2*n" if d in self.stride2 else "n" for d in range(self.rank)]

    def bytes_expr(self):
        f = " * ".join("(2*n)" if d in self.stride2 else "n" for d in range(self.rank))
        return f"{TYPE_BYTES[self.etype]} * {f}"


class Gen:
    def __init__(self, seed, index):
        self.seed, self.index = seed, index
        self.rng = random.Random(f"costline-compute-random/{seed}/{index}")
        self.kid = f"s{seed}_{index:02d}"
        self.unit = f"k_{self.kid}"

    # -- helpers ------------------------------------------------------------------------
    def pick(self, weighted):
        items, weights = zip(*weighted)
        return self.rng.choices(items, weights)[0]

    def new_name(self, etype):
        pool = INT_NAMES if etype == "integer" else REAL_NAMES
        used = {a.name for a in self.arrays} | set(self.scalars)
        for name in pool:
            if name not in used:
                return name
        raise Reject("names")

    def sub(self, arr, v, d, offset_ok=True, store=False):
        if d in arr.stride2:
            return self.rng.choice([f"2*{v}", f"2*{v} - 1"])
        if store or not offset_ok:
            return v
        lo, hi = self.bounds[v]
        opts = [(v, 6)]
        if lo >= 2:
            opts.append((f"{v} - 1", 1))
        if hi == "n - 1":
            opts.append((f"{v} + 1", 1))
        return self.pick(opts)

    def ref(self, arr, store=False, override=None):
        subs = []
        for d, v in enumerate(arr.dvars):
            if override and v in override:
                subs.append(override[v])
            else:
                subs.append(self.sub(arr, v, d, store=store))
        return f"{arr.name}({', '.join(subs)})"

    def layout(self, rank, all_vars=False):
        """The loop variables of an array's dimensions, fastest-varying dimension first."""
        inner_first = list(reversed(self.vars))  # identity layout: inner loop in dim 1
        if all_vars or rank == self.depth:
            order = inner_first[:]
            if self.depth >= 2 and self.rng.random() < 0.3:
                while order == inner_first:
                    self.rng.shuffle(order)
            return order[:rank]
        chosen = self.rng.sample(self.vars, rank)
        if self.rng.random() < 0.7:
            chosen.sort(key=inner_first.index)
        return chosen

    def new_array(self, role, etype, rank=None, dvars=None):
        if len(self.arrays) >= 7:
            raise Reject("too many arrays")
        if dvars is None:
            if rank is None:
                rank = self.depth if self.rng.random() < 0.6 else self.rng.randint(1, self.depth)
            dvars = self.layout(rank)
        stride2 = set()
        if self.rng.random() < 0.15:
            stride2.add(self.rng.randrange(len(dvars)))
        a = Array(self.new_name(etype), etype, dvars, stride2, role)
        self.arrays.append(a)
        return a

    # -- expressions: (text, interval, top) with top the precedence class ----------------
    def input_array(self):
        ins = [a for a in self.arrays if a.role == "in"]
        if ins and (len(ins) >= 3 or self.rng.random() < 0.45):
            return self.rng.choice(ins)
        etype = self.etype
        if self.etype != "integer" and self.rng.random() < 0.15:
            etype = self.rng.choice([t for t in ("real(8)", "real(4)", "integer") if t != self.etype])
        return self.new_array("in", etype)

    def load_input(self, real=False):
        """A load of an input array; real=True converts an integer element (for sqrt, exp)."""
        a = self.input_array()
        a.read = True
        t = self.ref(a)
        if real and a.etype == "integer":
            return self.convert((t, Iv(a.iv.lo, a.iv.hi), "atom", a.etype))
        return t, Iv(a.iv.lo, a.iv.hi), "atom", a.etype

    def convert(self, e):
        """e converted to the kernel's element type (when it has another one)."""
        if e[3] == self.etype:
            return e
        kind = "8" if self.etype == "real(8)" else "4"
        return f"real({e[0]}, {kind})", e[1], "atom", self.etype

    @staticmethod
    def promote(a, b):
        order = ["integer", "real(4)", "real(8)"]
        return a[3] if order.index(a[3]) >= order.index(b[3]) else b[3]

    def leaf(self):
        k = self.pick([("in", 62), ("prev", 14 if self.written else 0), ("coef", 10), ("lit", 14)])
        if k == "in":
            return self.load_input()
        if k == "prev":
            a = self.rng.choice(self.written)
            a.read = True
            return self.ref(a), Iv(a.iv.lo, a.iv.hi), "atom", a.etype
        if k == "coef":
            name = self.rng.choice(["alpha", "beta"])
            self.scalars.setdefault(name, {"value": self.rng.choice([0.25, 0.5, 0.75]) if self.etype != "integer" else 3})
            v = self.scalars[name]["value"]
            return name, Iv(v, v), "atom", self.etype
        v = self.rng.choice([2, 3] if self.etype == "integer" else [0.5, 1.5, 2.0, 3.0, 0.25])
        return lit(v, self.etype), Iv(v, v), "atom", self.etype

    @staticmethod
    def wrap(e, ok):
        return e[0] if e[2] in ok else f"({e[0]})"

    def expr(self, leaves):
        if leaves <= 1:
            return self.leaf()
        is_int = self.etype == "integer"
        op = self.pick([("+", 30), ("-", 18), ("*", 26), ("/", 10), ("intr", 16)])
        if op == "intr":
            f = self.pick([("sqrt", 0 if is_int else 3), ("exp", 0 if is_int else 2), ("abs", 2),
                           ("max", 3), ("min", 3)])
            if f == "exp":
                t, iv, _, ty = self.load_input(real=True)
                if self.rng.random() < 0.5:
                    return f"exp(-{t})", Iv(math.exp(-iv.hi), math.exp(-iv.lo)), "atom", ty
                h = lit(0.5, self.etype)
                return f"exp({h}*{t})", Iv(math.exp(0.5 * iv.lo), math.exp(0.5 * iv.hi)), "atom", \
                    self.promote((0, 0, 0, ty), (0, 0, 0, self.etype))
            if f == "sqrt":
                if self.rng.random() < 0.5:
                    t, iv, _, ty = self.load_input(real=True)
                    return f"sqrt({t})", Iv(math.sqrt(max(iv.lo, 0)), math.sqrt(iv.hi)), "atom", ty
                e = self.expr(leaves - 1)
                if e[3] == "integer":
                    e = self.convert(e)
                a = e[1].abs()
                return f"sqrt(abs({e[0]}))", Iv(math.sqrt(a.lo), math.sqrt(a.hi)), "atom", e[3]
            if f == "abs":
                e = self.expr(leaves - 1)
                return f"abs({e[0]})", e[1].abs(), "atom", e[3]
            nl = self.rng.randint(1, leaves - 1)
            a, b = self.expr(nl), self.expr(leaves - nl)
            if a[3] != b[3]:  # MAX and MIN want arguments of one type
                a, b = self.convert(a), self.convert(b)
            if f == "max":
                return f"max({a[0]}, {b[0]})", Iv(max(a[1].lo, b[1].lo), max(a[1].hi, b[1].hi)), "atom", a[3]
            return f"min({a[0]}, {b[0]})", Iv(min(a[1].lo, b[1].lo), min(a[1].hi, b[1].hi)), "atom", a[3]
        if op == "/":
            num = self.expr(leaves - 1)
            kind = self.pick([("load", 5), ("oneabs", 3 if leaves >= 3 else 0), ("lit", 2)])
            if kind == "load":
                den = self.load_input()
            elif kind == "oneabs":
                e = self.expr(1 if leaves < 4 else 2)
                one = lit(1, self.etype)
                den = (f"({one} + abs({e[0]}))", Iv(1, 1) + e[1].abs(), "atom", self.promote(e, (0, 0, 0, self.etype)))
            else:
                v = 3 if is_int else 3.0
                den = (lit(v, self.etype), Iv(v, v), "atom", self.etype)
            if den[1].near_zero(0.5):
                raise Reject("denominator")
            if num[3] == "integer" and den[3] == "integer" and not is_int:
                num = self.convert(num)  # no integer division inside a real expression
            return f"{self.wrap(num, ('atom', 'mul'))}/{self.wrap(den, ('atom',))}", num[1].div(den[1]), "mul", \
                self.promote(num, den)
        nl = self.rng.randint(1, leaves - 1)
        a, b = self.expr(nl), self.expr(leaves - nl)
        ty = self.promote(a, b)
        if op == "*":
            return f"{self.wrap(a, ('atom', 'mul'))}*{self.wrap(b, ('atom',))}", a[1] * b[1], "mul", ty
        if op == "+":
            return f"{a[0]} + {b[0]}", a[1] + b[1], "add", ty
        return f"{a[0]} - {self.wrap(b, ('atom', 'mul'))}", a[1] - b[1], "add", ty

    def away_from_zero(self, e):
        """e, shifted by a constant when its interval comes near 0 (the x = c*x + e updates)."""
        eps = 1 if self.etype == "integer" else 0.25
        if not e[1].near_zero(eps):
            return e
        k = math.ceil(-e[1].lo) + 1
        return f"{e[0]} + {lit(k, self.etype)}", e[1] + Iv(k, k), "add", self.promote(e, (0, 0, 0, self.etype))

    # -- kernel -------------------------------------------------------------------------
    def generate(self):
        rng = self.rng
        self.etype = self.pick([("real(8)", 5), ("real(4)", 3), ("integer", 2)])
        self.depth = self.pick([(1, 4), (2, 4), (3, 2)])
        self.vars = ["i"] if self.depth == 1 else (["j", "i"] if self.depth == 2 else ["k", "j", "i"])
        nstmt = self.pick([(1, 3), (2, 4), (3, 3)])
        kinds = []
        for _ in range(nstmt):
            kinds.append(self.pick([("map", 40), ("update", 20),
                                    ("reduce", 0 if "reduce" in kinds else 20),
                                    ("recur", 0 if "recur" in kinds else 18)]))
        self.bounds = {}
        for v in self.vars:
            self.bounds[v] = list(self.pick([((1, "n"), 5), ((2, "n"), 2), ((1, "n - 1"), 1), ((2, "n - 1"), 2)]))
        recur_var = None
        if "recur" in kinds:
            recur_var = self.vars[-1] if (self.depth == 1 or rng.random() < 0.65) else rng.choice(self.vars[:-1])
            self.bounds[recur_var][0] = 2
        self.arrays, self.scalars, self.written, self.stmts = [], {}, [], []
        self.reduction = None
        features = set()
        for kind in kinds:
            leaves = rng.randint(2, 4)
            if kind == "map":
                a = self.new_array("out", self.etype, dvars=self.layout(self.depth, all_vars=True))
                e = self.expr(leaves)
                self.stmts.append(f"{self.ref(a, store=True)} = {e[0]}")
                a.iv = a.iv.hull(e[1])
            elif kind == "update":
                rank = self.depth if (self.depth == 1 or rng.random() < 0.7) else self.depth - 1
                a = self.new_array("out", self.etype, dvars=self.layout(rank, all_vars=(rank == self.depth)))
                a.read = True
                e = self.away_from_zero(self.expr(leaves))
                r = self.ref(a, store=True)
                if self.etype == "integer":
                    self.stmts.append(f"{r} = {r}/2 + {self.wrap(e, ('atom', 'mul'))}" if rng.random() < 0.5
                                      else f"{r} = {r}/2 + {e[0]}")
                    a.iv = a.iv.hull(e[1].scale(2) + Iv(-1, 1))
                else:
                    c = lit(0.5, self.etype)
                    self.stmts.append(f"{r} = {c}*{r} + {e[0]}")
                    a.iv = a.iv.hull(e[1].scale(2))
                if rank < self.depth:
                    features.add("update_invariant_store")
                features.add("update")
            elif kind == "recur":
                a = self.new_array("out", self.etype, dvars=list(reversed(self.vars)))
                a.stride2 = set()
                a.read = True
                e = self.away_from_zero(self.expr(max(1, leaves - 1)))
                r = self.ref(a, store=True)
                prev = self.ref(a, store=True, override={recur_var: f"{recur_var} - 1"})
                if self.etype == "integer":
                    self.stmts.append(f"{r} = {prev}/2 + {e[0]}")
                    a.iv = a.iv.hull(e[1].scale(2) + Iv(-1, 1))
                elif rng.random() < 0.5:
                    self.scalars.setdefault("coef", {"value": 0.5})
                    self.stmts.append(f"{r} = {prev}*coef + {e[0]}")
                    a.iv = a.iv.hull(e[1].scale(2))
                else:
                    self.stmts.append(f"{r} = {lit(0.5, self.etype)}*{prev} + {e[0]}")
                    a.iv = a.iv.hull(e[1].scale(2))
                features.add("recurrence_inner" if recur_var == self.vars[-1] else "recurrence_outer")
            else:  # reduce
                name = "isum" if self.etype == "integer" else "s"
                out = rng.random() < 0.6
                if self.etype == "integer":
                    if rng.random() < 0.5:
                        e = self.load_input()
                        self.stmts.append(f"{name} = {name} + {e[0]}")
                        out = True
                    else:
                        e = self.expr(leaves)
                        self.stmts.append(f"{name} = {rng.choice(['max', 'min'])}({name}, {e[0]})")
                        features.add("minmax_reduction")
                else:
                    e = self.expr(leaves)
                    if rng.random() < 0.2:
                        self.stmts.append(f"{name} = {rng.choice(['max', 'min'])}({name}, {e[0]})")
                        features.add("minmax_reduction")
                    else:
                        self.stmts.append(f"{name} = {name} + {self.wrap(e, ('atom', 'mul'))}"
                                          if rng.random() < 0.5 else f"{name} = {name} + {e[0]}")
                self.reduction = {"name": name, "intent": "out" if out else "inout"}
                features.add("reduction")
                if e[1].mag() > 1e6:
                    raise Reject("magnitude")
            if kind in ("map", "update", "recur"):
                self.written.append(a)
            for arr in self.arrays:
                lim = 1e5 if arr.etype == "integer" else 1e6
                if arr.iv.mag() > lim:
                    raise Reject("magnitude")
        # shape of the fitting set: one loop, one statement, < 2 operators -> never emitted
        ops = sum(s.count(c) for s in self.stmts for c in "+-*/") + sum(
            s.count(f) for s in self.stmts for f in ("sqrt(", "exp(", "abs(", "max(", "min("))
        if self.depth == 1 and len(self.stmts) == 1 and ops < 2:
            raise Reject("training-like")
        if not self.stmts:
            raise Reject("empty")
        self.features = features
        return self.emit()

    # -- output ---------------------------------------------------------------------------
    def emit(self):
        arrays = self.arrays
        for a in arrays:
            if a.role == "out":
                a.intent = "inout" if a.read else "out"
            else:
                a.intent = "in"
        coefs = sorted(self.scalars)
        args = ["n"] + coefs + [a.name for a in arrays]
        if self.reduction:
            args.append(self.reduction["name"])
        L = [f"! {self.kid}: a random loop kernel (gen_kernels.py --seed {self.seed}, kernel {self.index}): "
             f"depth {self.depth}, {self.etype}",
             f"subroutine {self.unit}({', '.join(args)})",
             "  implicit none",
             "  integer, intent(in) :: n"]
        for name in coefs:
            L.append(f"  {self.etype}, intent(in) :: {name}")
        groups = {}
        for a in arrays:
            groups.setdefault((a.etype, a.intent), []).append(f"{a.name}({', '.join(a.dims())})")
        for (etype, intent), decls in groups.items():
            L.append(f"  {etype}, intent({intent}) :: {', '.join(decls)}")
        if self.reduction:
            L.append(f"  {self.etype}, intent({self.reduction['intent']}) :: {self.reduction['name']}")
        L.append(f"  integer :: {', '.join(sorted(self.vars))}")
        if self.reduction and self.reduction["intent"] == "out":
            L.append(f"  {self.reduction['name']} = {lit(0, self.etype)}")
        ind = "  "
        loops = []
        for v in self.vars:
            lo, hi = self.bounds[v]
            L.append(f"{ind}do {v} = {lo}, {hi}")
            loops.append({"var": v, "lower": str(lo), "upper": hi, "line": len(L)})
            ind += "  "
        for s in self.stmts:
            L.extend(wrap_line(ind + s))
        for _ in self.vars:
            ind = ind[:-2]
            L.append(f"{ind}end do")
        L.append(f"end subroutine {self.unit}")
        source = "\n".join(L) + "\n"

        # the manifest entry
        inner = self.vars[-1]
        strides = {}
        nonunit = 0
        for a in arrays:
            if inner not in a.dvars:
                st = "0"
            else:
                d = a.dvars.index(inner)
                st = ("2" if d in a.stride2 else "1") if d == 0 else ("n" if d == 1 else "n^2")
            strides[a.name] = st
            if st not in ("0", "1", "2"):
                nonunit += 1
        ws = " + ".join(a.bytes_expr() for a in arrays)
        trips = []
        for v in self.vars:
            lo, hi = self.bounds[v]
            trips.append(f"(n - {lo - 1 + (1 if hi == 'n - 1' else 0)})" if (lo - 1 + (hi == "n - 1")) else "n")
        text = " ".join(self.stmts)
        ns = 0.5 + 0.4 * len(self.stmts) + 2.0 * (text.count("/") + text.count("sqrt(")) \
            + 5.0 * text.count("exp(") + 10.0 * nonunit
        args_spec = [{"name": "n", "kind": "size"}]
        for name in coefs:
            args_spec.append({"name": name, "kind": "scalar", "type": self.etype, "intent": "in",
                              "value": lit(self.scalars[name]["value"], self.etype)})
        for a in arrays:
            lo, hi = (INPUT_INT if a.etype == "integer" else INPUT_REAL)
            args_spec.append({"name": a.name, "kind": "array", "type": a.etype, "dims": a.dims(),
                              "intent": a.intent,
                              "init": {"lo": lit(lo, a.etype), "hi": lit(hi, a.etype)}})
        if self.reduction:
            args_spec.append({"name": self.reduction["name"], "kind": "scalar", "type": self.etype,
                              "intent": self.reduction["intent"], "value": lit(0, self.etype)})
        feats = set(self.features)
        for f in ("sqrt", "exp", "abs", "max", "min"):
            if f + "(" in text:
                feats.add(f)
        if "/" in text:
            feats.add("division")
        if any(s not in ("0", "1") for s in strides.values()):
            feats.add("stride_" + "_".join(sorted({s for s in strides.values() if s not in ("0", "1")})))
        if len({a.etype for a in arrays}) > 1:
            feats.add("mixed_types")
        entry = {
            "id": self.kid, "suite": "random", "unit": self.unit, "file": f"{self.unit}.f90",
            "seed": self.seed, "index": self.index, "type": self.etype,
            "depth": self.depth, "loops": loops, "statements": self.stmts,
            "args": args_spec,
            "arrays": [{"name": a.name, "type": a.etype, "rank": a.rank, "dims": a.dims(),
                        "role": a.role, "intent": a.intent, "loop_vars": a.dvars,
                        "inner_stride": strides[a.name]} for a in arrays],
            "working_set": ws,
            "iterations": " * ".join(trips),
            "ns_per_iter": round(ns, 2),
            "n_min": 6,
            "features": sorted(feats),
        }
        return source, entry


def wrap_line(line, width=100):
    """Free-form continuation for long statements (break after ', ' or ' + ')."""
    if len(line) <= width:
        return [line]
    indent = len(line) - len(line.lstrip()) + 4
    out, cur = [], line
    while len(cur) > width:
        cut = max(cur.rfind(" + ", 0, width), cur.rfind(" - ", 0, width), cur.rfind(", ", 0, width))
        if cut <= indent:
            break
        out.append(cur[:cut + 1].rstrip() + " &")
        cur = " " * indent + cur[cut + 1:].lstrip()
    out.append(cur)
    return out


def generate(seed, index):
    """(source, entry) of kernel `index` of `seed`: retries with derived streams on rejection."""
    for attempt in range(200):
        g = Gen(seed, index)
        if attempt:
            g.rng = random.Random(f"costline-compute-random/{seed}/{index}/{attempt}")
        try:
            return g.generate()
        except (Reject, ValueError, ZeroDivisionError, OverflowError):
            continue
    raise RuntimeError(f"no kernel for seed {seed} index {index}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    caches = detect_caches()
    kernels = []
    for i in range(args.count):
        source, entry = generate(args.seed, i)
        entry["sizes"] = plan_sizes(entry, caches)
        with open(os.path.join(args.out, entry["file"]), "w") as f:
            f.write(source)
        with open(os.path.join(args.out, entry["unit"] + ".json"), "w") as f:
            json.dump(entry, f, indent=1)
            f.write("\n")
        kernels.append(entry)
    manifest = {"suite": "random", "seed": args.seed, "caches": caches,
                "targets": dict(targets(caches)), "call_budget_s": CALL_BUDGET_S,
                "kernels": kernels}
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"gen_kernels: {len(kernels)} kernels (seed {args.seed}) in {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
