//! The Fortran that records the irregular reads of mapped arrays
//! ([`costline_model::comm::gather`]), after the counters' module
//! ([`super::counters`]), whose writing at exit it arms: each read site's layouts as
//! tables, and
//! `costline_gather_read(g, nl, lhs, nr, read)` (before each execution of the read:
//! the subscripts of the left-hand side's element and of the element read) and
//! `costline_gather_instance(g)` (where each instance of its fetch starts). Per
//! execution the receivers are the owners of the left-hand side's element (every
//! processor when the statement has none), the sender the lowest-numbered owner of
//! the element read, by the same rule as [`Layout::owners`] (the tables hold a
//! layout's grid and, per template dimension, its lower bound, block size, whether
//! blocks wrap, grid dimension and template index); a receiver owning a copy reads
//! it locally. An element counts once per (receiver, instance) — a stamp per element
//! and receiver holds the instance it last counted in — and a pair's message once per
//! instance. At exit `costline_gather_dump` writes `gather g reads outside` and `pair
//! g from to messages elements` lines after the counters (`outside`: reads whose
//! element or left-hand side fell outside its bounds or template, not counted).

use costline_model::comm::gather::GatherLayouts;
use costline_model::distribution::{Format, Layout, TemplateIndex};

/// Elements × receivers a read may stamp at most (8 bytes each).
pub const MAX_STAMPS: i64 = 1 << 24;

/// One read site's tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GatherTable {
    pub layouts: GatherLayouts,
    /// The array read's (lower bound, extent) per dimension.
    pub bounds: Vec<(i64, i64)>,
}

impl GatherTable {
    /// The processors that may execute the statement: the left-hand side's, else every
    /// processor of the array read's.
    pub fn receivers(&self) -> i64 {
        self.layouts
            .lhs
            .as_ref()
            .unwrap_or(&self.layouts.read)
            .processors()
    }

    /// The elements of the array read.
    pub fn elements(&self) -> i64 {
        self.bounds.iter().map(|(_, e)| *e).product()
    }
}

/// A layout as the owner routine reads it: the grid's rank and extents, the template
/// dimensions' count, then per dimension its lower bound, block size (0: collapsed),
/// whether blocks wrap (CYCLIC), grid dimension (from 1; 0: none), template index
/// kind (0 replicated, 1 constant, 2 affine), the constant or the array dimension
/// (from 1), the coefficient and the offset.
fn layout_table(l: &Layout) -> Vec<i64> {
    let mut t = vec![l.grid.len() as i64];
    t.extend(&l.grid);
    t.push(l.dims.len() as i64);
    for d in &l.dims {
        let (size, wraps) = match d.format {
            Format::Block(b) => (b, 0),
            Format::Cyclic(k) => (k, 1),
            Format::Collapsed => (0, 0),
        };
        let (kind, at, coef, offset) = match d.index {
            TemplateIndex::Replicated => (0, 0, 0, 0),
            TemplateIndex::Constant(x) => (1, x, 0, 0),
            TemplateIndex::Affine { dim, coef, offset } => (2, dim as i64 + 1, coef, offset),
        };
        let grid = d.grid.map_or(0, |g| g as i64 + 1);
        t.extend([d.lower, size, wraps, grid, kind, at, coef, offset]);
    }
    t
}

/// The Fortran of the read sites `sites` (site g is `sites[g - 1]`).
pub fn gathers_source(sites: &[GatherTable]) -> String {
    let mut tables: Vec<i64> = Vec::new();
    let mut at = |t: Vec<i64>| {
        let start = tables.len() + 1;
        tables.extend(t);
        start as i64
    };
    let mut read = Vec::new();
    let mut lhs = Vec::new();
    let mut shape = Vec::new();
    for s in sites {
        read.push(at(layout_table(&s.layouts.read)));
        lhs.push(s.layouts.lhs.as_ref().map_or(0, |l| at(layout_table(l))));
        let mut b = vec![s.bounds.len() as i64];
        for (lo, ext) in &s.bounds {
            b.extend([*lo, *ext]);
        }
        shape.push(at(b));
    }
    let list = |v: &[i64]| -> String {
        if v.is_empty() {
            "0_8".to_string()
        } else {
            v.iter()
                .map(|x| format!("{x}_8"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let ints = |f: &dyn Fn(&GatherTable) -> i64| -> Vec<i64> { sites.iter().map(f).collect() };
    GATHERS
        .replace("@SITES@", &sites.len().max(1).to_string())
        .replace("@NTABLES@", &tables.len().max(1).to_string())
        .replace("@TABLES@", &continued(&list(&tables)))
        .replace("@READ@", &continued(&list(&read)))
        .replace("@LHS@", &continued(&list(&lhs)))
        .replace("@SHAPE@", &continued(&list(&shape)))
        .replace(
            "@RECEIVERS@",
            &continued(&list(&ints(&GatherTable::receivers))),
        )
        .replace(
            "@SENDERS@",
            &continued(&list(&ints(&|s| s.layouts.read.processors()))),
        )
        .replace(
            "@ELEMENTS@",
            &continued(&list(&ints(&GatherTable::elements))),
        )
        .replace("@COUNT@", &sites.len().to_string())
}

/// A list of values written over continuation lines of four values, from a line of
/// their own (free form's 132 columns hold any four).
fn continued(list: &str) -> String {
    let mut out = String::from("&\n      ");
    for (k, item) in list.split(", ").enumerate() {
        if k > 0 && k % 4 == 0 {
            out.push_str(", &\n      ");
        } else if k > 0 {
            out.push_str(", ");
        }
        out.push_str(item);
    }
    out
}

const GATHERS: &str = "
! The irregular reads of mapped arrays (costline profile).
module costline_profile_gathers
  use costline_profile_counters, only: costline_arm
  implicit none
  private
  public :: costline_gather_record, costline_gather_next, costline_gather_write, owners, &
    site_read, site_lhs
  integer, parameter :: nsites = @SITES@, used = @COUNT@
  integer(8), parameter :: tables(@NTABLES@) = [ @TABLES@ ]
  integer(8), parameter :: site_read(nsites) = [ @READ@ ]
  integer(8), parameter :: site_lhs(nsites) = [ @LHS@ ]
  integer(8), parameter :: site_shape(nsites) = [ @SHAPE@ ]
  integer(8), parameter :: site_receivers(nsites) = [ @RECEIVERS@ ]
  integer(8), parameter :: site_senders(nsites) = [ @SENDERS@ ]
  integer(8), parameter :: site_elements(nsites) = [ @ELEMENTS@ ]
  type site
    integer(8), allocatable :: stamp(:), sent(:), messages(:), elements(:)
    integer(8) :: instance = 0, reads = 0, outside = 0
  end type site
  type(site), save :: sites(nsites)
contains
  ! The owners (from 1) of element idx(1:n) of the array laid out by the table at t:
  ! own(1:count), count = 0 when the element falls outside its template.
  subroutine owners(t, idx, n, own, count)
    integer(8), intent(in) :: t
    integer, intent(in) :: n
    integer(8), intent(in) :: idx(n)
    integer(8), intent(out) :: own(:)
    integer, intent(out) :: count
    integer :: ng, nd, d, g, m
    integer(8) :: at, choice(16), x, p, stride, c
    ng = int(tables(t))
    choice(1:ng) = -1
    nd = int(tables(t + 1 + ng))
    at = t + 2 + ng
    count = 0
    do d = 1, nd
      g = int(tables(at + 3))
      if (g > 0 .and. tables(at + 1) > 0 .and. tables(at + 4) /= 0) then
        if (tables(at + 4) == 1) then
          x = tables(at + 5)
        else
          m = int(tables(at + 5))
          if (m < 1 .or. m > n) return
          x = tables(at + 6) * idx(m) + tables(at + 7)
        end if
        p = tables(t + g)
        x = x - tables(at)
        if (x < 0) return
        c = x / tables(at + 1)
        if (tables(at + 2) /= 0) c = modulo(c, p)
        if (c >= p) return
        choice(g) = c
      end if
      at = at + 8
    end do
    count = 1
    own(1) = 0
    stride = 1
    do g = 1, ng
      p = tables(t + g)
      if (choice(g) >= 0) then
        own(1:count) = own(1:count) + choice(g) * stride
      else
        do c = 1, p - 1
          own(c * count + 1:(c + 1) * count) = own(1:count) + c * stride
        end do
        count = count * int(p)
      end if
      stride = stride * p
    end do
    own(1:count) = own(1:count) + 1
  end subroutine owners

  subroutine costline_gather_next(g)
    integer, intent(in) :: g
    call costline_arm()
    sites(g)%instance = sites(g)%instance + 1
  end subroutine costline_gather_next

  subroutine costline_gather_record(g, nl, lhs, nr, rd)
    integer, intent(in) :: g, nl, nr
    integer(8), intent(in) :: lhs(*), rd(*)
    integer(8) :: e, stride, lo, ext, sender, p, i, j, rown(site_senders(g)), &
      lown(site_receivers(g)), r, s
    integer :: d, rcount, lcount, k
    r = site_receivers(g)
    s = site_senders(g)
    call costline_arm()
    if (.not. allocated(sites(g)%stamp)) then
      allocate(sites(g)%stamp(site_elements(g) * r), sites(g)%sent(s * r), &
        sites(g)%messages(s * r), sites(g)%elements(s * r))
      sites(g)%stamp = -1
      sites(g)%sent = -1
      sites(g)%messages = 0
      sites(g)%elements = 0
    end if
    sites(g)%reads = sites(g)%reads + 1
    e = 0
    stride = 1
    do d = 1, nr
      lo = tables(site_shape(g) + 2 * d - 1)
      ext = tables(site_shape(g) + 2 * d)
      if (rd(d) < lo .or. rd(d) >= lo + ext) then
        sites(g)%outside = sites(g)%outside + 1
        return
      end if
      e = e + (rd(d) - lo) * stride
      stride = stride * ext
    end do
    call owners(site_read(g), rd(1:nr), nr, rown, rcount)
    if (site_lhs(g) > 0) then
      call owners(site_lhs(g), lhs(1:nl), nl, lown, lcount)
    else
      lcount = int(r)
      lown = [(i, i = 1, r)]
    end if
    if (rcount == 0 .or. lcount == 0) then
      sites(g)%outside = sites(g)%outside + 1
      return
    end if
    sender = minval(rown(1:rcount))
    do k = 1, lcount
      p = lown(k)
      if (any(rown(1:rcount) == p)) cycle
      i = e * r + p
      if (sites(g)%stamp(i) == sites(g)%instance) cycle
      sites(g)%stamp(i) = sites(g)%instance
      j = (p - 1) * s + sender
      sites(g)%elements(j) = sites(g)%elements(j) + 1
      if (sites(g)%sent(j) /= sites(g)%instance) then
        sites(g)%sent(j) = sites(g)%instance
        sites(g)%messages(j) = sites(g)%messages(j) + 1
      end if
    end do
  end subroutine costline_gather_record

  subroutine costline_gather_write(u)
    integer, intent(in) :: u
    integer :: g
    integer(8) :: p, q, j
    do g = 1, used
      write(u, '(a,1x,i0,1x,i0,1x,i0)') 'gather', g, sites(g)%reads, sites(g)%outside
      if (.not. allocated(sites(g)%stamp)) cycle
      do p = 1, site_receivers(g)
        do q = 1, site_senders(g)
          j = (p - 1) * site_senders(g) + q
          if (sites(g)%messages(j) > 0) write(u, '(a,5(1x,i0))') 'pair', g, q, p, &
            sites(g)%messages(j), sites(g)%elements(j)
        end do
      end do
    end do
  end subroutine costline_gather_write
end module costline_profile_gathers

subroutine costline_gather_read(g, nl, lhs, nr, rd)
  use costline_profile_gathers, only: costline_gather_record
  implicit none
  integer, intent(in) :: g, nl, nr
  integer(8), intent(in) :: lhs(*), rd(*)
  call costline_gather_record(g, nl, lhs, nr, rd)
end subroutine costline_gather_read

subroutine costline_gather_dump(u)
  use costline_profile_gathers, only: costline_gather_write
  implicit none
  integer, intent(in) :: u
  call costline_gather_write(u)
end subroutine costline_gather_dump

subroutine costline_gather_instance(g)
  use costline_profile_gathers, only: costline_gather_next
  implicit none
  integer, intent(in) :: g
  call costline_gather_next(g)
end subroutine costline_gather_instance
";

#[cfg(test)]
mod tests {
    use super::*;
    use costline_model::distribution::LayoutDim;

    #[test]
    fn a_layout_table_holds_its_grid_and_each_dimension() {
        let l = Layout {
            arrangement: "pr".into(),
            grid: vec![2, 3],
            dims: vec![LayoutDim {
                lower: 1,
                extent: 8,
                format: Format::Cyclic(2),
                grid: Some(1),
                index: TemplateIndex::Affine {
                    dim: 0,
                    coef: 1,
                    offset: -1,
                },
            }],
            lowers: vec![],
        };
        assert_eq!(layout_table(&l), [2, 2, 3, 1, 1, 2, 1, 2, 2, 1, 1, -1]);
        assert_eq!(
            continued("1_8, 2_8, 3_8, 4_8, 5_8"),
            "&\n      1_8, 2_8, 3_8, 4_8, &\n      5_8"
        );
    }
}
