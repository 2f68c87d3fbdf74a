//! The Fortran the instrumented program is linked with: its counters, and the routine
//! that writes them to the file `$COSTLINE_PROFILE_OUT` names (one `k count` line per
//! counter) when the program ends, however it ends normally (END, STOP, ERROR STOP:
//! each calls the C library's `exit`, which runs what `atexit` registered).
//! Under MPI (`RANKED_VARIABLE` set), each rank writes its own file: the name with
//! `.RANK` appended, the rank read from the launcher's environment
//! (`OMPI_COMM_WORLD_RANK`, else `PMI_RANK`; `.unknown` when neither is set), so
//! that no MPI call is needed after `MPI_Finalize`.
//! `costline_hit(k)` (one more), `costline_add(k, n)` (n more, n of kind 8) and
//! `costline_value(k, v)` (a value recorded in counters k to k+3: one more record,
//! the sum, the least and the greatest value) are external subroutines, so that the
//! instrumented units call them without a USE statement or an interface; so are the
//! recorders of irregular reads ([`super::gathers`]), whose lines follow the counts.

use super::gathers::{GatherTable, gathers_source};
use std::collections::BTreeMap;

/// The name of the file the instrumented program is linked with.
pub const COUNTERS_FILE: &str = "costline_profile.f90";

/// The environment variable naming the file the counters are written to.
pub const OUTPUT_VARIABLE: &str = "COSTLINE_PROFILE_OUT";

/// The environment variable that, set to `1`, makes each MPI rank write its counts to
/// the file [`OUTPUT_VARIABLE`] names with `.RANK` appended ([`ranked_output`]).
pub const RANKED_VARIABLE: &str = "COSTLINE_PROFILE_RANKED";

/// The file rank `rank` writes its counts to when the output is ranked.
pub fn ranked_output(path: &std::path::Path, rank: u32) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{rank}"));
    name.into()
}

/// The counters' source for `n` counters (numbered 1 to `n`) and the read sites
/// `gathers` (numbered from 1).
pub fn counters_source(n: usize, gathers: &[GatherTable]) -> String {
    TEMPLATE.replace("@N@", &n.max(1).to_string()) + &gathers_source(gathers)
}

/// What a run wrote: the counts, and what each read site recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunCounts {
    /// `counts[k - 1]` for counter `k`, 0 for a counter it did not write (a value's
    /// sum and extremes may be negative).
    pub counts: Vec<i64>,
    /// By read site: its executions, those outside its bounds, and its pairs.
    pub gathers: BTreeMap<usize, SiteCounts>,
}

/// What one read site recorded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SiteCounts {
    pub reads: u64,
    pub outside: u64,
    /// (sender, receiver, messages, elements), 1-based processors.
    pub pairs: Vec<(usize, usize, u64, u64)>,
}

/// What the program wrote (`k count` lines, then `gather g reads outside` and `pair
/// g from to messages elements` lines) for `n` counters. An error names a line that
/// is none of these.
pub fn read_counts(text: &str, n: usize) -> Result<RunCounts, String> {
    // The Fortran keeps one counter at least.
    let mut out = RunCounts {
        counts: vec![0; n.max(1)],
        gathers: BTreeMap::new(),
    };
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let ints = |from: usize| -> Option<Vec<u64>> {
            words[from..].iter().map(|w| w.parse().ok()).collect()
        };
        let ok = match words.as_slice() {
            ["gather", ..] => ints(1).is_some_and(|v| match v[..] {
                [g, reads, outside] => {
                    let site = out.gathers.entry(g as usize).or_default();
                    site.reads = reads;
                    site.outside = outside;
                    true
                }
                _ => false,
            }),
            ["pair", ..] => ints(1).is_some_and(|v| match v[..] {
                [g, from, to, messages, elements] => {
                    let site = out.gathers.entry(g as usize).or_default();
                    site.pairs
                        .push((from as usize, to as usize, messages, elements));
                    true
                }
                _ => false,
            }),
            [k, c] => match (k.parse::<usize>(), c.parse::<i64>()) {
                (Ok(k), Ok(c)) if (1..=n.max(1)).contains(&k) => {
                    out.counts[k - 1] = c;
                    true
                }
                _ => false,
            },
            _ => false,
        };
        if !ok {
            return Err(format!(
                "line {} of the counts is not `counter count`",
                i + 1
            ));
        }
    }
    out.counts.truncate(n);
    Ok(out)
}

const TEMPLATE: &str = "! Written by costline profile: the counters of an instrumented program.
module costline_profile_counters
  use, intrinsic :: iso_c_binding, only: c_int, c_funptr, c_funloc
  implicit none
  private
  public :: costline_count, costline_add_count, costline_value_record, costline_arm
  integer(8), save :: counts(@N@) = 0
  logical, save :: armed = .false.
  interface
    function c_atexit(f) bind(c, name='atexit') result(r)
      import :: c_int, c_funptr
      type(c_funptr), value :: f
      integer(c_int) :: r
    end function c_atexit
  end interface
contains
  ! Registers the writing of the counts at exit, once.
  subroutine costline_arm()
    integer(c_int) :: r
    if (.not. armed) then
      armed = .true.
      r = c_atexit(c_funloc(costline_dump))
    end if
  end subroutine costline_arm

  subroutine costline_count(k)
    integer, intent(in) :: k
    call costline_arm()
    counts(k) = counts(k) + 1
  end subroutine costline_count

  subroutine costline_add_count(k, n)
    integer, intent(in) :: k
    integer(8), intent(in) :: n
    call costline_count(k)
    counts(k) = counts(k) - 1 + n
  end subroutine costline_add_count

  subroutine costline_value_record(k, v)
    integer, intent(in) :: k
    integer(8), intent(in) :: v
    call costline_count(k)
    if (counts(k) == 1) then
      counts(k + 2) = v
      counts(k + 3) = v
    else
      counts(k + 2) = min(counts(k + 2), v)
      counts(k + 3) = max(counts(k + 3), v)
    end if
    counts(k + 1) = counts(k + 1) + v
  end subroutine costline_value_record

  subroutine costline_dump() bind(c)
    character(len=4096) :: path
    character(len=32) :: ranked, rank
    integer :: u, k, length, status, rlength
    call get_environment_variable('COSTLINE_PROFILE_OUT', path, length, status)
    if (status /= 0) return
    call get_environment_variable('COSTLINE_PROFILE_RANKED', ranked, status=status)
    if (status == 0 .and. ranked == '1') then
      call get_environment_variable('OMPI_COMM_WORLD_RANK', rank, rlength, status)
      if (status /= 0) call get_environment_variable('PMI_RANK', rank, rlength, status)
      if (status /= 0) then
        rank = 'unknown'
        rlength = 7
      end if
      path = path(1:length) // '.' // rank(1:rlength)
      length = length + 1 + rlength
    end if
    open(newunit=u, file=path(1:length), status='replace', action='write')
    do k = 1, size(counts)
      write(u, '(i0,1x,i0)') k, counts(k)
    end do
    call costline_gather_dump(u)
    close(u)
  end subroutine costline_dump
end module costline_profile_counters

subroutine costline_hit(k)
  use costline_profile_counters, only: costline_count
  implicit none
  integer, intent(in) :: k
  call costline_count(k)
end subroutine costline_hit

subroutine costline_add(k, n)
  use costline_profile_counters, only: costline_add_count
  implicit none
  integer, intent(in) :: k
  integer(8), intent(in) :: n
  call costline_add_count(k, n)
end subroutine costline_add

subroutine costline_value(k, v)
  use costline_profile_counters, only: costline_value_record
  implicit none
  integer, intent(in) :: k
  integer(8), intent(in) :: v
  call costline_value_record(k, v)
end subroutine costline_value
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counters_are_sized_and_the_output_variable_named() {
        let s = counters_source(12, &[]);
        assert!(s.contains("counts(12) = 0"), "{s}");
        assert!(s.contains(OUTPUT_VARIABLE));
        assert!(s.contains(RANKED_VARIABLE));
        assert_eq!(
            ranked_output(std::path::Path::new("/t/counts.txt"), 3),
            std::path::PathBuf::from("/t/counts.txt.3")
        );
        assert!(counters_source(0, &[]).contains("counts(1) = 0"));
    }

    #[test]
    fn counts_are_read_by_counter_and_reads_by_site() {
        let run = read_counts("1 5\n3 -7\ngather 1 9 0\npair 1 2 1 3 4\n", 3).unwrap();
        assert_eq!(run.counts, vec![5, 0, -7]);
        assert_eq!(
            run.gathers[&1],
            SiteCounts {
                reads: 9,
                outside: 0,
                pairs: vec![(2, 1, 3, 4)]
            }
        );
        assert!(read_counts("4 1\n", 3).is_err());
        assert!(read_counts("1 x\n", 3).is_err());
        assert!(read_counts("pair 1 2\n", 3).is_err());
        // No counter: the one the Fortran keeps anyway is not one.
        assert!(
            read_counts("1 0\ngather 1 2 0\n", 0)
                .unwrap()
                .counts
                .is_empty()
        );
    }
}
