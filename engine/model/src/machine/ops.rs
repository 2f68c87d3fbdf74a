//! Operation kinds and types of the `[processor.ops]` table, and what an operation costs
//! when the model does not list it (derived from the operations it does list).

use super::model::Machine;
use std::fmt;

/// What an operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKind {
    /// Addition, subtraction, negation.
    Add,
    Mul,
    Div,
    /// `x ** y`.
    Pow,
    /// A relational operator.
    Cmp,
    /// `.and.`, `.or.`, `.not.`, `.eqv.`, `.neqv.`.
    Logic,
    /// A type conversion (integer to real, real to double, ...).
    Cvt,
}

/// The type an operation works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpType {
    I32,
    I64,
    F32,
    F64,
    /// Single-precision complex.
    C64,
    /// Double-precision complex.
    C128,
}

/// One entry of the operation table.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OpKey {
    Arith(OpKind, OpType),
    /// A memory read of an array element (from the level the data lives in: see
    /// `time::memory`).
    Load,
    Store,
    /// A conditional branch (IF, a WHERE mask, ...).
    Branch,
    /// One iteration of a DO loop: increment, test, jump.
    LoopIter,
    /// A procedure call and return.
    Call,
    /// An elemental intrinsic by its generic name (`sqrt`, `exp`, ...).
    Intrinsic(String),
    /// The latency of an operation on a loop-carried chain (`latency_add_f64`): a
    /// statement that updates a scalar from its own value (`s = s + a(i)*b(i)`) cannot
    /// start before the previous execution's result is there, so one execution takes
    /// at least this long however well its other operations overlap.
    Latency(OpKind, OpType),
    /// One micro-operation through the core's front end (`issue`): in the `ports`
    /// model every operation on a port issues (a DO iteration's increment and
    /// compare-and-jump two), so an execution takes at least its micro-operations times
    /// this. No statement counts it: [`Machine::execution_s`] derives it.
    Issue,
    /// One byte of a loop the compiler replaced by a call of memcpy
    /// (`time::library`): the library's rate, call included (`memcpy_byte`).
    MemcpyByte,
    /// One multiply-add of the MATMUL intrinsic when the compiler calls its runtime
    /// library's blocked routine for it (`matmul_fma`, real(8); `time::intrinsic`).
    MatmulFma,
}

impl OpKind {
    const ALL: [(OpKind, &'static str); 7] = [
        (OpKind::Add, "add"),
        (OpKind::Mul, "mul"),
        (OpKind::Div, "div"),
        (OpKind::Pow, "pow"),
        (OpKind::Cmp, "cmp"),
        (OpKind::Logic, "logic"),
        (OpKind::Cvt, "cvt"),
    ];

    pub fn name(self) -> &'static str {
        OpKind::ALL.iter().find(|(k, _)| *k == self).unwrap().1
    }
}

impl OpType {
    const ALL: [(OpType, &'static str); 6] = [
        (OpType::I32, "i32"),
        (OpType::I64, "i64"),
        (OpType::F32, "f32"),
        (OpType::F64, "f64"),
        (OpType::C64, "c64"),
        (OpType::C128, "c128"),
    ];

    pub fn name(self) -> &'static str {
        OpType::ALL.iter().find(|(t, _)| *t == self).unwrap().1
    }

    /// The real type of a complex one's parts.
    fn part(self) -> OpType {
        match self {
            OpType::C64 => OpType::F32,
            OpType::C128 => OpType::F64,
            t => t,
        }
    }

    /// The same kind of number at the other precision.
    fn other_precision(self) -> OpType {
        match self {
            OpType::I32 => OpType::I64,
            OpType::I64 => OpType::I32,
            OpType::F32 => OpType::F64,
            OpType::F64 => OpType::F32,
            OpType::C64 => OpType::C128,
            OpType::C128 => OpType::C64,
        }
    }
}

/// The execution resource an operation occupies in the `ports` overlap model (a
/// port-pressure model of a superscalar out-of-order core: the loads, the stores, the
/// floating-point adders, the floating-point multipliers, the integer units, the
/// (unpipelined) divider, the taken-branch unit and the front end that issues every
/// micro-operation work in parallel, so the busiest decides (integer additions, shifts
/// and compares share the integer units, integer multiplications have a multiplier of
/// their own). Calls — of procedures and of the mathematical library (exp, log, sin, a
/// real power) — occupy no port: a call runs dozens of instructions of its own, which
/// fill the out-of-order window, so the rest of the iteration does not overlap it and
/// its time adds (measured here: `a(i) = exp(-b(i))` beside a first-order recurrence
/// takes the exponential's time plus the recurrence's, not the larger of the two).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Port {
    Load,
    Store,
    FpAdd,
    FpMul,
    Int,
    /// Integer multiplications.
    IntMul,
    /// Divisions and square roots (and integer division, MOD).
    Div,
    /// Taken branches: a DO iteration's jump back, an IF's branch.
    Branch,
    /// The front end: every micro-operation (see [`OpKey::uops`]).
    Issue,
}

impl Port {
    pub const ALL: [Port; 9] = [
        Port::Load,
        Port::Store,
        Port::FpAdd,
        Port::FpMul,
        Port::Int,
        Port::IntMul,
        Port::Div,
        Port::Branch,
        Port::Issue,
    ];
}

impl OpKey {
    /// The port an operation occupies, `None` for one that does not overlap.
    pub fn port(&self) -> Option<Port> {
        use OpKind::*;
        use OpType::*;
        match self {
            OpKey::Load => Some(Port::Load),
            OpKey::Store => Some(Port::Store),
            OpKey::Arith(Add | Cmp | Cvt, F32 | F64) => Some(Port::FpAdd),
            OpKey::Arith(Mul, F32 | F64) => Some(Port::FpMul),
            OpKey::Arith(Mul, I32 | I64) => Some(Port::IntMul),
            OpKey::Arith(Add | Cmp | Logic | Cvt, I32 | I64) => Some(Port::Int),
            OpKey::Arith(Div, F32 | F64 | I32 | I64) => Some(Port::Div),
            OpKey::Intrinsic(n) if matches!(n.as_str(), "abs" | "min" | "max" | "sign") => {
                Some(Port::FpAdd)
            }
            OpKey::Intrinsic(n) if matches!(n.as_str(), "sqrt" | "mod" | "modulo") => {
                Some(Port::Div)
            }
            OpKey::LoopIter | OpKey::Branch => Some(Port::Branch),
            OpKey::Issue => Some(Port::Issue),
            _ => None,
        }
    }

    /// Micro-operations the front end issues for one such operation in the `ports`
    /// model: one per operation on an execution port, two per DO iteration (the
    /// increment, and the fused compare and jump); none for what does not overlap.
    pub fn uops(&self) -> f64 {
        match (self, self.port()) {
            (OpKey::LoopIter, _) => 2.0,
            (OpKey::Issue, _) | (_, None) => 0.0,
            _ => 1.0,
        }
    }
}

/// Generic names of the intrinsics a model may price (specific names such as DSQRT
/// map to these).
pub const INTRINSICS: &[&str] = &[
    "abs", "sqrt", "exp", "log", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "min", "max", "mod", "modulo", "sign", "dim", "int", "nint", "aint",
    "anint", "floor", "ceiling", "real", "dble", "cmplx", "conjg", "aimag", "erf", "erfc", "gamma",
    "hypot", "iand", "ior", "ieor", "ishft", "merge",
];

impl OpKey {
    /// Parses a key of the `[processor.ops]` table.
    pub fn parse(key: &str) -> Option<OpKey> {
        Some(match key {
            "load" => OpKey::Load,
            "store" => OpKey::Store,
            "branch" => OpKey::Branch,
            "loop_iter" => OpKey::LoopIter,
            "call" => OpKey::Call,
            "issue" => OpKey::Issue,
            "memcpy_byte" => OpKey::MemcpyByte,
            "matmul_fma" => OpKey::MatmulFma,
            _ => {
                if let Some(op) = key.strip_prefix("latency_") {
                    return match OpKey::parse(op)? {
                        OpKey::Arith(kind, ty) => Some(OpKey::Latency(kind, ty)),
                        _ => None,
                    };
                }
                if let Some(name) = key.strip_prefix("intrinsic_") {
                    return INTRINSICS
                        .contains(&name)
                        .then(|| OpKey::Intrinsic(name.to_string()));
                }
                let (kind, ty) = key.split_once('_')?;
                let kind = OpKind::ALL.iter().find(|(_, n)| *n == kind)?.0;
                let ty = OpType::ALL.iter().find(|(_, n)| *n == ty)?.0;
                OpKey::Arith(kind, ty)
            }
        })
    }

    /// Every key a model may have, for messages.
    pub fn examples() -> &'static str {
        "add_f64, mul_i32, div_f32, pow_f64, cmp_f64, logic_i32, cvt_f64 (kinds add, mul, div, \
         pow, cmp, logic, cvt; types i32, i64, f32, f64, c64, c128), load, store, branch, \
         loop_iter, call, intrinsic_<name>, latency_<kind>_<type> (e.g. latency_add_f64), issue, \
         memcpy_byte, matmul_fma"
    }
}

impl fmt::Display for OpKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpKey::Arith(k, t) => write!(f, "{}_{}", k.name(), t.name()),
            OpKey::Load => f.write_str("load"),
            OpKey::Store => f.write_str("store"),
            OpKey::Branch => f.write_str("branch"),
            OpKey::LoopIter => f.write_str("loop_iter"),
            OpKey::Call => f.write_str("call"),
            OpKey::Intrinsic(n) => write!(f, "intrinsic_{n}"),
            OpKey::Latency(k, t) => write!(f, "latency_{}_{}", k.name(), t.name()),
            OpKey::Issue => f.write_str("issue"),
            OpKey::MemcpyByte => f.write_str("memcpy_byte"),
            OpKey::MatmulFma => f.write_str("matmul_fma"),
        }
    }
}

/// The operations every model must list: the rest can be derived from them.
pub const REQUIRED: &[&str] = &[
    "add_i32",
    "add_f64",
    "mul_f64",
    "div_f64",
    "load",
    "store",
    "branch",
    "loop_iter",
    "call",
];

impl Machine {
    /// Whether the model is an out-of-order core's (`overlap = "ports"`): operations
    /// overlap on their ports, within a statement and across one loop iteration's.
    pub fn overlaps_ports(&self) -> bool {
        self.processor.overlap.as_deref() == Some("ports")
    }

    /// Seconds for one execution of `counts` operations: their sum, never less than the
    /// latency of the loop-carried chain through the execution (its `latency_*`
    /// operations); or with the `ports` overlap model the operations outside the ports
    /// (calls) plus the larger of the busiest port's time (the front end's included:
    /// the micro-operations times `issue`) and the chain's.
    pub fn execution_s<'a>(&self, counts: impl IntoIterator<Item = (&'a OpKey, f64)>) -> f64 {
        let (serial, overlapped) = self.serial_and_overlapped_s(counts);
        serial + overlapped
    }

    /// [`Machine::execution_s`] in two parts: (what runs alone, what overlaps). Without
    /// the `ports` model everything is the first part, unless the chain is longer (then
    /// the second is what the chain adds).
    pub fn serial_and_overlapped_s<'a>(
        &self,
        counts: impl IntoIterator<Item = (&'a OpKey, f64)>,
    ) -> (f64, f64) {
        let ports = self.overlaps_ports();
        let mut serial = 0.0;
        let mut chain = 0.0;
        let mut by_port = [0.0f64; Port::ALL.len()];
        let mut uops = 0.0;
        for (key, n) in counts {
            let t = n * self.op_s(key);
            if matches!(key, OpKey::Latency(..)) {
                chain += t;
                continue;
            }
            match key.port().filter(|_| ports) {
                Some(p) => {
                    by_port[p as usize] += t;
                    uops += n * key.uops();
                }
                None => serial += t,
            }
        }
        if ports {
            by_port[Port::Issue as usize] += uops * self.op_s(&OpKey::Issue);
            (
                serial,
                f64::max(chain, by_port.iter().copied().fold(0.0, f64::max)),
            )
        } else {
            (serial, (chain - serial).max(0.0))
        }
    }

    /// Seconds per operation `key`: the model's entry, else derived from the entries it
    /// has (the other precision; a multiplication's latency as an addition's; complex
    /// arithmetic from its real parts — 2 adds, 4
    /// multiplications and 2 adds, and for a division also 2 real divisions; a missing
    /// comparison or conversion as an add, a power as exp(y·log x), a cheap intrinsic
    /// as an add, a transcendental one as 10 multiplications, a byte of memcpy as a
    /// 16-byte load and store per 16 bytes).
    pub fn op_s(&self, key: &OpKey) -> f64 {
        let ops = &self.processor.ops;
        let get = |k: &OpKey| ops.get(&k.to_string()).copied();
        if let Some(s) = get(key) {
            return s;
        }
        let base = |k: &str| ops.get(k).copied().unwrap_or(0.0);
        match key {
            OpKey::Arith(kind, ty) => {
                if let Some(s) = get(&OpKey::Arith(*kind, ty.other_precision()))
                    && !matches!(ty, OpType::C64 | OpType::C128)
                {
                    return s;
                }
                let real = |k: OpKind| self.op_s(&OpKey::Arith(k, ty.part()));
                match (kind, ty) {
                    (OpKind::Add, OpType::C64 | OpType::C128) => 2.0 * real(OpKind::Add),
                    (OpKind::Mul, OpType::C64 | OpType::C128) => {
                        4.0 * real(OpKind::Mul) + 2.0 * real(OpKind::Add)
                    }
                    (OpKind::Div, OpType::C64 | OpType::C128) => {
                        6.0 * real(OpKind::Mul) + 3.0 * real(OpKind::Add) + 2.0 * real(OpKind::Div)
                    }
                    (OpKind::Pow, _) => {
                        self.intrinsic_s("exp") + self.intrinsic_s("log") + real(OpKind::Mul)
                    }
                    (OpKind::Add, OpType::I32 | OpType::I64) => base("add_i32"),
                    (OpKind::Add, _) => base("add_f64"),
                    (OpKind::Mul, OpType::I32 | OpType::I64) => {
                        base("add_i32").max(base("mul_f64"))
                    }
                    (OpKind::Mul, _) => base("mul_f64"),
                    (OpKind::Div, _) => base("div_f64"),
                    (OpKind::Cmp | OpKind::Logic | OpKind::Cvt, OpType::I32 | OpType::I64) => {
                        base("add_i32")
                    }
                    (OpKind::Cmp | OpKind::Logic | OpKind::Cvt, _) => base("add_f64"),
                }
            }
            OpKey::Intrinsic(name) => self.intrinsic_s(name),
            // A 16-byte load and store per 16 bytes.
            OpKey::MemcpyByte => (base("load") + base("store")) / 16.0,
            // The other precision's; a multiplication's chain as an addition's (both
            // take 3–4 cycles on current x86 cores: Agner Fog's tables), and so a
            // compare-and-select's (a running MAX/MIN: maxsd takes as long as addsd on
            // Intel cores, less on AMD Zen; gfortran -O2 code measured twice the
            // addition's chain on an Intel Xeon here, so this is a lower bound until a
            // model measures `latency_cmp_f64`); a model with neither sets no floor.
            OpKey::Latency(kind, ty) => get(&OpKey::Latency(*kind, ty.other_precision()))
                .or_else(|| {
                    matches!(kind, OpKind::Mul | OpKind::Cmp)
                        .then(|| self.op_s(&OpKey::Latency(OpKind::Add, *ty)))
                        .filter(|s| *s > 0.0)
                })
                .filter(|_| !matches!(ty, OpType::C64 | OpType::C128))
                .unwrap_or(0.0),
            // Required keys: a validated model has them.
            _ => 0.0,
        }
    }

    fn intrinsic_s(&self, name: &str) -> f64 {
        let ops = &self.processor.ops;
        if let Some(s) = ops.get(&format!("intrinsic_{name}")) {
            return *s;
        }
        let add = ops.get("add_f64").copied().unwrap_or(0.0);
        let mul = ops.get("mul_f64").copied().unwrap_or(0.0);
        match name {
            "abs" | "min" | "max" | "sign" | "dim" | "int" | "nint" | "aint" | "anint"
            | "floor" | "ceiling" | "real" | "dble" | "cmplx" | "conjg" | "aimag" | "iand"
            | "ior" | "ieor" | "ishft" | "merge" => add,
            "mod" | "modulo" => ops.get("div_f64").copied().unwrap_or(0.0),
            "sqrt" => ops.get("div_f64").copied().unwrap_or(0.0),
            _ => 10.0 * mul,
        }
    }
}

/// The generic name of an intrinsic (`dsqrt` → `sqrt`, `amax1` → `max`), if the
/// operation table can price it.
pub fn generic_intrinsic(name: &str) -> Option<&'static str> {
    let generic = match name {
        "iabs" | "dabs" | "cabs" => "abs",
        "dsqrt" | "csqrt" => "sqrt",
        "dexp" | "cexp" => "exp",
        "alog" | "dlog" | "clog" => "log",
        "alog10" | "dlog10" => "log10",
        "dsin" | "csin" => "sin",
        "dcos" | "ccos" => "cos",
        "dtan" => "tan",
        "dasin" => "asin",
        "dacos" => "acos",
        "datan" => "atan",
        "datan2" => "atan2",
        "dsinh" => "sinh",
        "dcosh" => "cosh",
        "dtanh" => "tanh",
        "min0" | "amin0" | "min1" | "amin1" | "dmin1" => "min",
        "max0" | "amax0" | "max1" | "amax1" | "dmax1" => "max",
        "amod" | "dmod" => "mod",
        "isign" | "dsign" => "sign",
        "idim" | "ddim" => "dim",
        "ifix" | "idint" => "int",
        "idnint" => "nint",
        "dint" => "aint",
        "dnint" => "anint",
        "float" | "sngl" | "dfloat" => "real",
        "dcmplx" => "cmplx",
        "dconjg" => "conjg",
        "dimag" => "aimag",
        other => other,
    };
    INTRINSICS.iter().find(|n| **n == generic).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip() {
        for key in [
            "add_f64",
            "cvt_i64",
            "pow_c128",
            "load",
            "loop_iter",
            "intrinsic_sqrt",
            "latency_add_f64",
            "issue",
            "memcpy_byte",
            "matmul_fma",
        ] {
            assert_eq!(OpKey::parse(key).unwrap().to_string(), key);
        }
        assert_eq!(OpKey::parse("add_f65"), None);
        assert_eq!(OpKey::parse("intrinsic_frobnicate"), None);
        assert_eq!(OpKey::parse("fma_f64"), None);
        assert_eq!(OpKey::parse("latency_load"), None);
    }

    #[test]
    fn ports_overlap_and_the_rest_adds_up() {
        let mut m = crate::machine::Catalog::default_machine();
        m.processor.ops = [
            ("load", 1.0),
            ("store", 2.0),
            ("add_f64", 3.0),
            ("mul_f64", 4.0),
            ("div_f64", 5.0),
            ("call", 10.0),
            ("intrinsic_exp", 7.0),
            ("loop_iter", 2.5),
            ("issue", 0.5),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let counts = [
            (OpKey::Load, 3.0),
            (OpKey::Store, 1.0),
            (OpKey::Arith(OpKind::Add, OpType::F64), 2.0),
            (OpKey::Arith(OpKind::Mul, OpType::F64), 1.0),
            (OpKey::Arith(OpKind::Div, OpType::F64), 1.0),
            (OpKey::Call, 1.0),
            (OpKey::LoopIter, 1.0),
        ];
        let each = || counts.iter().map(|(k, n)| (k, *n));
        m.processor.overlap = None;
        assert_eq!(
            m.execution_s(each()),
            3.0 + 2.0 + 6.0 + 4.0 + 5.0 + 10.0 + 2.5
        );
        m.processor.overlap = Some("ports".into());
        // The adders are busiest (6; the divider 5, the front end 0.5 x 10 uops), the
        // call of a procedure does not overlap (10).
        assert_eq!(m.execution_s(each()), 16.0);
        // Six more loads: the loads are busiest (9; the front end 0.5 x 16 uops), and
        // with a slower front end (1 s per uop) the front end is.
        let more = [(OpKey::Load, 6.0)];
        let t = m.execution_s(each().chain(more.iter().map(|(k, n)| (k, *n))));
        assert_eq!(t, 10.0 + 9.0);
        m.processor.ops.insert("issue".into(), 1.0);
        let t = m.execution_s(each().chain(more.iter().map(|(k, n)| (k, *n))));
        assert_eq!(t, 10.0 + 16.0);
        // Two calls of exp (7 each) fill the window: the rest of the iteration (the
        // adders, 6) adds to them.
        m.processor.ops.insert("issue".into(), 0.5);
        let exps = [(OpKey::Intrinsic("exp".into()), 2.0)];
        let t = m.execution_s(
            each()
                .filter(|(k, _)| **k != OpKey::Call)
                .chain(exps.iter().map(|(k, n)| (k, *n))),
        );
        assert_eq!(t, 14.0 + 6.0);
        // And so does a chain: it starts again after the call.
        m.processor.ops.insert("latency_add_f64".into(), 8.0);
        let chained = [(OpKey::Latency(OpKind::Add, OpType::F64), 4.0)];
        let t = m.execution_s(
            exps.iter()
                .map(|(k, n)| (k, *n))
                .chain(chained.iter().map(|(k, n)| (k, *n))),
        );
        assert_eq!(t, 14.0 + 4.0 * 8.0);
    }

    /// A loop-carried chain is a floor under the execution's time, not an addend.
    #[test]
    fn a_recurrence_takes_at_least_its_latency() {
        let mut m = crate::machine::Catalog::default_machine();
        m.processor.overlap = None;
        m.processor.ops = [("load", 1.0), ("add_f64", 1.0), ("latency_add_f32", 5.0)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let add = OpKey::Arith(OpKind::Add, OpType::F64);
        let chain = OpKey::Latency(OpKind::Add, OpType::F64);
        // Priced from the other precision's entry.
        assert_eq!(m.op_s(&chain), 5.0);
        let short = [(&OpKey::Load, 2.0), (&add, 1.0), (&chain, 1.0)];
        assert_eq!(m.execution_s(short), 5.0);
        let long = [(&OpKey::Load, 8.0), (&add, 1.0), (&chain, 1.0)];
        assert_eq!(m.execution_s(long), 9.0);
        // A model without the latency sets no floor.
        m.processor.ops.remove("latency_add_f32");
        assert_eq!(m.execution_s(short), 3.0);
    }

    #[test]
    fn specific_names_map_to_generic_ones() {
        assert_eq!(generic_intrinsic("dsqrt"), Some("sqrt"));
        assert_eq!(generic_intrinsic("amax1"), Some("max"));
        assert_eq!(generic_intrinsic("sum"), None);
    }
}
