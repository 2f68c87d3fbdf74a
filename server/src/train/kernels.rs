//! The training kernels of machines/training/kernels.f90 and their operation counts
//! per loop iteration, by costline's counting convention: one `load` per distinct
//! array element read on the right-hand side (scalars are registers), one `store` per
//! array element assigned, one add/mul/div/cmp/cvt per operator on its result type,
//! one `intrinsic_<name>` per elemental intrinsic, one `loop_iter` per DO iteration,
//! one `branch` per IF condition evaluated, one `call` per procedure call.

/// One kernel: its name in ops.f90's output, its counts per inner iteration, and its
/// inner iterations per call.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    pub name: &'static str,
    pub counts: &'static [(&'static str, f64)],
    /// Inner-loop iterations per call of the kernel (ops.f90 reports per iteration).
    pub iterations: f64,
    /// Iterations of an enclosing loop of the kernel's own per inner iteration (1/k of
    /// a k-iteration inner loop); its `loop_iter` count includes them.
    pub outer: f64,
    /// For the kernel that measures the out-of-order window (`window_iterations`): the
    /// loop-carried chain of one inner iteration (`latency_*` entries), which starts
    /// again at each entry of the inner loop. Empty for the others.
    pub chain: &'static [(&'static str, f64)],
}

/// n of ops.f90: the elements of every array a kernel works on.
const N: f64 = 720.0;

const fn k(name: &'static str, counts: &'static [(&'static str, f64)]) -> Kernel {
    Kernel {
        name,
        counts,
        iterations: N,
        outer: 0.0,
        chain: &[],
    }
}

/// The kernels that measure one cost directly, outside the fit: the time per
/// iteration of the kernel is the cost per operation of the key (a library routine
/// whose inside the counting convention does not describe).
pub const DIRECT: &[(&str, &str)] = &[("matmul", "matmul_fma")];

/// The training set. Every kernel also gets 1/iterations of a `call` and of a
/// `loop_iter` per iteration: ops.f90 calls it from a DO loop (see [`row`]).
pub const KERNELS: &[Kernel] = &[
    k("store", &[("store", 1.0), ("loop_iter", 1.0)]),
    k("copy", &[("load", 1.0), ("store", 1.0), ("loop_iter", 1.0)]),
    k(
        "add",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_f64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "sub",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_f64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "mul",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("mul_f64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "div",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("div_f64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "triad",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_f64", 1.0),
            ("mul_f64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    Kernel {
        name: "sum4",
        counts: &[
            ("load", 4.0),
            ("store", 1.0),
            ("add_f64", 3.0),
            ("loop_iter", 1.0),
        ],
        iterations: N - 2.0,
        outer: 0.0,
        chain: &[],
    },
    k(
        "sqrt",
        &[
            ("load", 1.0),
            ("store", 1.0),
            ("intrinsic_sqrt", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "exp",
        &[
            ("load", 1.0),
            ("store", 1.0),
            ("intrinsic_exp", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "log",
        &[
            ("load", 1.0),
            ("store", 1.0),
            ("intrinsic_log", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "sin",
        &[
            ("load", 1.0),
            ("store", 1.0),
            ("intrinsic_sin", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "cos",
        &[
            ("load", 1.0),
            ("store", 1.0),
            ("intrinsic_cos", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "abs",
        &[
            ("load", 1.0),
            ("store", 1.0),
            ("intrinsic_abs", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "max",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("intrinsic_max", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "min",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("intrinsic_min", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "mod",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("intrinsic_mod", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "pow",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("pow_f64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "cmp",
        &[
            ("load", 1.0),
            ("store", 1.0),
            ("cmp_f64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    // IF (b(i) > s) a(i) = b(i), true in half the iterations: the condition's load,
    // compare and branch, and half an assignment (a load and a store).
    k(
        "branch_sorted",
        &[
            ("load", 1.5),
            ("store", 0.5),
            ("cmp_f64", 1.0),
            ("branch", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "branch_random",
        &[
            ("load", 1.5),
            ("store", 0.5),
            ("cmp_f64", 1.0),
            ("branch", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "add_i32",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_i32", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "mul_i32",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("mul_i32", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "div_i32",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("div_i32", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "add_i64",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_i64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "add_f32",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_f32", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "mul_f32",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("mul_f32", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "div_f32",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("div_f32", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "cvt",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_f64", 1.0),
            ("cvt_f64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    // do j = 1, m; do i = 1, k: per element the inner iteration and 1/k of an outer one.
    Kernel {
        name: "nest3",
        counts: &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_f64", 1.0),
            ("loop_iter", 1.0 + 1.0 / 3.0),
        ],
        iterations: N,
        outer: 1.0 / 3.0,
        chain: &[],
    },
    Kernel {
        name: "nest8",
        counts: &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_f64", 1.0),
            ("loop_iter", 1.0 + 1.0 / 8.0),
        ],
        iterations: N,
        outer: 1.0 / 8.0,
        chain: &[],
    },
    // The 2-D Jacobi update on a 30 x 24 grid: 28 x 22 interior points, 1/28 of an
    // outer iteration per point.
    Kernel {
        name: "stencil",
        counts: &[
            ("load", 4.0),
            ("store", 1.0),
            ("add_f64", 3.0),
            ("mul_f64", 1.0),
            ("loop_iter", 1.0 + 1.0 / 28.0),
        ],
        iterations: 28.0 * 22.0,
        outer: 1.0 / 28.0,
        chain: &[],
    },
    // s = s + b(i) * c(i): a scalar sum, no store; the sum is a loop-carried chain, so
    // an iteration takes the add's latency (the fit takes latency_add_f64 from it).
    k(
        "dot",
        &[
            ("load", 2.0),
            ("add_f64", 1.0),
            ("mul_f64", 1.0),
            ("loop_iter", 1.0),
            ("latency_add_f64", 1.0),
        ],
    ),
    // s = s * d(i) + b(i): a recurrence through a multiplication and an addition; the
    // fit takes latency_mul_f64 from it once dot has given latency_add_f64.
    k(
        "recur",
        &[
            ("load", 2.0),
            ("add_f64", 1.0),
            ("mul_f64", 1.0),
            ("loop_iter", 1.0),
            ("latency_mul_f64", 1.0),
            ("latency_add_f64", 1.0),
        ],
    ),
    // s = b(i) / s: a recurrence through a division (latency_div_f64).
    k(
        "recdiv",
        &[
            ("load", 1.0),
            ("div_f64", 1.0),
            ("loop_iter", 1.0),
            ("latency_div_f64", 1.0),
        ],
    ),
    // s = max(s, b(i)): a running maximum, a recurrence through a compare-and-select
    // (latency_cmp_f64; MAXVAL of reals is priced with it too).
    k(
        "rmax",
        &[
            ("load", 1.0),
            ("intrinsic_max", 1.0),
            ("loop_iter", 1.0),
            ("latency_cmp_f64", 1.0),
        ],
    ),
    // call k_tiny(a(i)); the callee's x = x + 1 on a scalar dummy.
    k(
        "call",
        &[("call", 1.0), ("add_f64", 1.0), ("loop_iter", 1.0)],
    ),
    // The port grid (kernels.f90): each keeps one resource of the core busiest.
    k(
        "add8",
        &[
            ("load", 1.0),
            ("store", 1.0),
            ("add_f64", 8.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "mul8",
        &[
            ("load", 1.0),
            ("store", 1.0),
            ("mul_f64", 8.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "horner4",
        &[
            ("load", 1.0),
            ("store", 1.0),
            ("mul_f64", 4.0),
            ("add_f64", 4.0),
            ("loop_iter", 1.0),
        ],
    ),
    Kernel {
        name: "load8",
        counts: &[
            ("load", 8.0),
            ("store", 1.0),
            ("mul_f64", 4.0),
            ("add_f64", 3.0),
            ("loop_iter", 1.0),
        ],
        iterations: N / 2.0,
        outer: 0.0,
        chain: &[],
    },
    k("store4", &[("store", 4.0), ("loop_iter", 1.0)]),
    k(
        "mix3",
        &[
            ("load", 4.0),
            ("store", 3.0),
            ("add_f64", 2.0),
            ("mul_f64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "divadd",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("div_f64", 1.0),
            ("add_f64", 8.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "div2",
        &[
            ("load", 4.0),
            ("store", 1.0),
            ("div_f64", 2.0),
            ("add_f64", 1.0),
            ("loop_iter", 1.0),
        ],
    ),
    // a(i, j) = a(i-1, j)*h + b(i, j) over 8 and 24 iterations per entry of the inner
    // loop: each entry's chain overlaps the previous ones' in the out-of-order window.
    Kernel {
        name: "rshort8",
        counts: &[
            ("load", 2.0),
            ("store", 1.0),
            ("mul_f64", 1.0),
            ("add_f64", 1.0),
            ("loop_iter", 1.0 + 1.0 / 8.0),
        ],
        iterations: 8.0 * 80.0,
        outer: 1.0 / 8.0,
        chain: &[("latency_mul_f64", 1.0), ("latency_add_f64", 1.0)],
    },
    Kernel {
        name: "rshort24",
        counts: &[
            ("load", 2.0),
            ("store", 1.0),
            ("mul_f64", 1.0),
            ("add_f64", 1.0),
            ("loop_iter", 1.0 + 1.0 / 24.0),
        ],
        iterations: 24.0 * 28.0,
        outer: 1.0 / 24.0,
        chain: &[("latency_mul_f64", 1.0), ("latency_add_f64", 1.0)],
    },
    // The MATMUL intrinsic on 64 x 64 matrices (the library's routine: above gfortran's
    // inline limit of 30): one multiply-add per iteration, measured directly (see
    // [`DIRECT`]).
    Kernel {
        name: "matmul",
        counts: &[("matmul_fma", 1.0)],
        iterations: 64.0 * 64.0 * 64.0,
        outer: 0.0,
        chain: &[],
    },
    // The integer units (kernels.f90): a division by a power of two is three integer
    // operations, MIN and MAX two (see `costline_model::time::ops`).
    k(
        "ishift",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_i32", 14.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "iselect",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("add_i32", 6.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "imul2",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("mul_i32", 2.0),
            ("add_i32", 3.0),
            ("loop_iter", 1.0),
        ],
    ),
    k(
        "ihorner3",
        &[
            ("load", 2.0),
            ("store", 1.0),
            ("mul_i32", 3.0),
            ("add_i32", 3.0),
            ("loop_iter", 1.0),
        ],
    ),
    // s = s/2 + b(i): an integer recurrence through four integer operations.
    k(
        "irec",
        &[
            ("load", 1.0),
            ("add_i32", 4.0),
            ("loop_iter", 1.0),
            ("latency_add_i32", 4.0),
        ],
    ),
];

/// The operations the training set determines, in a fixed order (the unknowns of the
/// fit).
pub fn unknowns() -> Vec<&'static str> {
    let mut keys: Vec<&'static str> = vec!["call"];
    for kernel in KERNELS {
        for (key, _) in kernel.counts {
            if !keys.contains(key) {
                keys.push(key);
            }
        }
    }
    keys
}

/// The kernel's counts per inner iteration as a row over `unknowns`, including the
/// driver's share: one call and one iteration of the driver's DO loop per kernel call,
/// i.e. 1/iterations of each per inner iteration.
pub fn row(kernel: &Kernel, unknowns: &[&str]) -> Vec<f64> {
    unknowns
        .iter()
        .map(|u| {
            let own: f64 = kernel
                .counts
                .iter()
                .filter(|(k, _)| k == u)
                .map(|(_, c)| c)
                .sum();
            let driver = if *u == "call" || *u == "loop_iter" {
                1.0 / kernel.iterations
            } else {
                0.0
            };
            own + driver
        })
        .collect()
}

/// The kernel named `name`.
pub fn find(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_a_model_needs_is_an_unknown() {
        let u = unknowns();
        for key in costline_ide::machine::ops::REQUIRED {
            assert!(u.contains(key), "{key}");
        }
        for key in &u {
            assert!(
                costline_ide::machine::ops::OpKey::parse(key).is_some(),
                "{key}"
            );
        }
    }

    #[test]
    fn the_driver_adds_a_call_per_kernel_call() {
        let u = unknowns();
        let r = row(find("store").unwrap(), &u);
        let at = |k: &str| r[u.iter().position(|x| *x == k).unwrap()];
        assert_eq!(at("store"), 1.0);
        assert!((at("call") - 1.0 / 720.0).abs() < 1e-15);
        assert!((at("loop_iter") - (1.0 + 1.0 / 720.0)).abs() < 1e-15);
    }

    #[test]
    fn the_fortran_driver_measures_every_kernel_in_the_table() {
        let driver = include_str!("../../../machines/training/ops.f90");
        for k in KERNELS {
            assert!(
                driver.contains(&format!("call add_kernel('{}')", k.name)),
                "{}",
                k.name
            );
        }
    }
}
