//! Checked integer arithmetic in a machine word: i64 first, i128 when an intermediate
//! overflows i64 (i128 multiplication and division are several times slower).

/// See the module doc.
pub trait Word: Copy + Ord + std::fmt::Debug {
    const ZERO: Self;
    const ONE: Self;
    fn narrow(x: i128) -> Option<Self>;
    fn widen(x: i64) -> Self;
    fn to_i128(self) -> i128;
    fn add(self, o: Self) -> Option<Self>;
    fn sub(self, o: Self) -> Option<Self>;
    fn neg(self) -> Option<Self>;
    fn mul(self, o: Self) -> Option<Self>;
    fn pow(self, e: u32) -> Option<Self>;
    /// Floor division (the divisor positive).
    fn floor_div(self, d: Self) -> Option<Self>;
    /// The remainder of [`Word::floor_div`]: in `[0, d)` for d > 0.
    fn floor_rem(self, d: Self) -> Option<Self>;
    /// Fortran's MOD and integer division: truncating toward zero.
    fn trunc_rem(self, d: Self) -> Option<Self>;
    fn trunc_div(self, d: Self) -> Option<Self>;
    fn is_multiple_of_den(self, d: Self) -> bool;
    fn exact_div(self, d: Self) -> Self;
}

macro_rules! word {
    ($t:ty) => {
        impl Word for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            fn narrow(x: i128) -> Option<Self> {
                <$t>::try_from(x).ok()
            }
            fn widen(x: i64) -> Self {
                x.into()
            }
            fn to_i128(self) -> i128 {
                self.into()
            }
            fn add(self, o: Self) -> Option<Self> {
                self.checked_add(o)
            }
            fn sub(self, o: Self) -> Option<Self> {
                self.checked_sub(o)
            }
            fn neg(self) -> Option<Self> {
                self.checked_neg()
            }
            fn mul(self, o: Self) -> Option<Self> {
                self.checked_mul(o)
            }
            fn pow(self, e: u32) -> Option<Self> {
                self.checked_pow(e)
            }
            fn floor_div(self, d: Self) -> Option<Self> {
                self.checked_div_euclid(d)
            }
            fn floor_rem(self, d: Self) -> Option<Self> {
                self.checked_rem_euclid(d)
            }
            fn trunc_rem(self, d: Self) -> Option<Self> {
                self.checked_rem(d)
            }
            fn trunc_div(self, d: Self) -> Option<Self> {
                self.checked_div(d)
            }
            fn is_multiple_of_den(self, d: Self) -> bool {
                self % d == 0
            }
            fn exact_div(self, d: Self) -> Self {
                self / d
            }
        }
    };
}

word!(i64);
word!(i128);
