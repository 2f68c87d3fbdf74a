//! Cooperative interruption of long computations. The driver installs a check for the
//! thread an analysis runs on ([`with_check`]; the database's: "has a newer change
//! arrived?"), and every loop whose length the input decides calls [`point`]: now and
//! then that runs the check, which stops the computation by unwinding (salsa's
//! `Cancelled`). Without a check installed (the command line, the tests) a point costs
//! a thread-local increment and nothing stops.

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A check runs at every `EVERY`-th [`point`] of a thread.
const EVERY: u32 = 4096;

type Check = Box<dyn Fn()>;

thread_local! {
    static CHECK: RefCell<Option<Check>> = const { RefCell::new(None) };
    static TICKS: Cell<u32> = const { Cell::new(0) };
}

/// Runs `f` with `check` as this thread's interruption check (the previous one is
/// restored afterwards, also when `f` unwinds).
pub fn with_check<R>(check: Check, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Check>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CHECK.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _restore = Restore(CHECK.with(|c| c.replace(Some(check))));
    f()
}

/// An interruption point: one step of a long loop. Every [`EVERY`]-th call runs the
/// thread's check, which may unwind.
#[inline]
pub fn point() {
    let ticks = TICKS.with(|t| {
        let n = t.get().wrapping_add(1);
        t.set(n);
        n
    });
    if ticks.is_multiple_of(EVERY) {
        check_now();
    }
}

/// Runs the thread's check now (it may unwind).
pub fn check_now() {
    CHECK.with(|c| {
        if let Some(check) = c.borrow().as_ref() {
            check();
        }
    });
}

/// Whether the thread's check would stop the computation now, without unwinding: for
/// loops that must not unwind (a callback from C). The caller stops and then calls
/// [`check_now`] outside the callback, which unwinds.
pub fn requested() -> bool {
    catch_unwind(AssertUnwindSafe(check_now)).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn a_point_runs_the_check_now_and_then_and_the_check_stops_the_loop() {
        let calls = Rc::new(Cell::new(0u32));
        let seen = calls.clone();
        let stopped = catch_unwind(AssertUnwindSafe(|| {
            with_check(
                Box::new(move || {
                    seen.set(seen.get() + 1);
                    if seen.get() == 3 {
                        std::panic::resume_unwind(Box::new("stop"));
                    }
                }),
                || {
                    for _ in 0..100 * EVERY {
                        point();
                    }
                },
            )
        }));
        assert!(stopped.is_err());
        assert_eq!(calls.get(), 3);
        // The check is gone with its scope.
        point();
        check_now();
        assert!(!requested());
        assert_eq!(calls.get(), 3);
    }

    #[test]
    fn requested_reports_a_stop_without_unwinding() {
        with_check(Box::new(|| std::panic::resume_unwind(Box::new(()))), || {
            assert!(requested());
        });
        with_check(Box::new(|| {}), || assert!(!requested()));
    }
}
