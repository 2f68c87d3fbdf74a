//! Fortran (and HPF library) intrinsic procedures, by how they treat array arguments.

/// How an intrinsic maps array arguments to its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntrinsicClass {
    /// Applied element by element (`SQRT(A)` has A's shape): scalarized with the
    /// statement around it.
    Elemental,
    /// Works on whole arrays (`SUM`, `MATMUL`, `CSHIFT`): its array arguments stay
    /// sections; the communication analysis recognizes them as patterns.
    Transformational,
    /// Asks about an array, reads no elements (`SIZE`, `UBOUND`).
    Inquiry,
}

/// The class of intrinsic `name` (lower-case), or `None` if it is not one.
pub fn intrinsic_class(name: &str) -> Option<IntrinsicClass> {
    use IntrinsicClass::*;
    Some(match name {
        // Numeric, mathematical, type conversion, character and bit intrinsics,
        // including the FORTRAN 77 specific names (DSQRT, AMAX1, ...).
        "abs" | "iabs" | "dabs" | "cabs" | "sqrt" | "dsqrt" | "csqrt" | "exp" | "dexp" | "cexp"
        | "log" | "alog" | "dlog" | "clog" | "log10" | "alog10" | "dlog10" | "sin" | "dsin"
        | "csin" | "cos" | "dcos" | "ccos" | "tan" | "dtan" | "asin" | "dasin" | "acos"
        | "dacos" | "atan" | "datan" | "atan2" | "datan2" | "sinh" | "dsinh" | "cosh" | "dcosh"
        | "tanh" | "dtanh" | "min" | "min0" | "amin0" | "min1" | "amin1" | "dmin1" | "max"
        | "max0" | "amax0" | "max1" | "amax1" | "dmax1" | "mod" | "amod" | "dmod" | "modulo"
        | "sign" | "isign" | "dsign" | "dim" | "idim" | "ddim" | "dprod" | "dble" | "dfloat"
        | "real" | "float" | "sngl" | "int" | "ifix" | "idint" | "nint" | "idnint" | "aint"
        | "dint" | "anint" | "dnint" | "floor" | "ceiling" | "cmplx" | "dcmplx" | "conjg"
        | "dconjg" | "aimag" | "dimag" | "ichar" | "char" | "iachar" | "achar" | "iand" | "ior"
        | "ieor" | "not" | "ishft" | "ishftc" | "btest" | "ibset" | "ibclr" | "merge"
        | "logical" | "exponent" | "fraction" | "nearest" | "spacing" | "scale" | "len_trim"
        | "adjustl" | "adjustr" | "index" | "erf" | "erfc" | "gamma" | "hypot" | "bessel_j0"
        | "bessel_j1" => Elemental,
        "sum" | "product" | "maxval" | "minval" | "maxloc" | "minloc" | "dot_product"
        | "matmul" | "transpose" | "cshift" | "eoshift" | "spread" | "reshape" | "pack"
        | "unpack" | "count" | "any" | "all" | "norm2" | "trim" | "repeat" | "findloc" => {
            Transformational
        }
        "size"
        | "shape"
        | "lbound"
        | "ubound"
        | "allocated"
        | "associated"
        | "present"
        | "len"
        | "kind"
        | "huge"
        | "tiny"
        | "epsilon"
        | "digits"
        | "precision"
        | "range"
        | "radix"
        | "bit_size"
        | "selected_int_kind"
        | "selected_real_kind"
        | "number_of_processors"
        | "processors_shape" => Inquiry,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(intrinsic_class("dsqrt"), Some(IntrinsicClass::Elemental));
        assert_eq!(
            intrinsic_class("cshift"),
            Some(IntrinsicClass::Transformational)
        );
        assert_eq!(
            intrinsic_class("number_of_processors"),
            Some(IntrinsicClass::Inquiry)
        );
        assert_eq!(intrinsic_class("mpi_send"), None);
    }
}
