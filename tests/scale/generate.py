#!/usr/bin/env python3
"""Writes a large Fortran program for measuring a cold `costline check` (time and peak
memory), the "200k-line program" of issue 25:

    python3 tests/scale/generate.py hpf 2000 > /tmp/hpf200k.f90     # 202,000 lines
    python3 tests/scale/generate.py plain 2000 > /tmp/plain200k.f90 # 198,000 lines
    /usr/bin/time -f '%e s %M KB' target/release/costline check /tmp/hpf200k.f90 \\
        --param n=1000 > /dev/null

`hpf`: subroutines of 19 (BLOCK, *)-distributed stencil nests, each assignment reading
its neighbours across the block boundary (a communication record per statement).
`plain`: subroutines of 19 doubly nested loops over undistributed arrays, with a
branch and a call each; the main program calls every subroutine.
"""
import sys


def hpf(k):
    out = [
        f"subroutine s{k}(a, b, n)",
        "  integer :: n, i, j",
        "  real :: a(n, n), b(n, n)",
        "!HPF$ PROCESSORS pr(4)",
        "!HPF$ DISTRIBUTE (BLOCK, *) ONTO pr :: a, b",
    ]
    for s in range(19):
        out += [
            "  do j = 1, n",
            "    do i = 2, n - 1",
            f"      a(i, j) = b(i - 1, j) + b(i + 1, j) * {s}.0",
            "    end do",
            "  end do",
        ]
    out.append(f"end subroutine s{k}")
    return out


def plain(k):
    out = [
        f"subroutine s{k}(a, b, n, m)",
        "  integer :: n, m, i, j",
        "  real :: a(n, m), b(n, m)",
    ]
    for s in range(19):
        out += [
            "  do j = 1, m",
            "    do i = 1, n",
            f"      if (a(i, j) > {s}.0) a(i, j) = a(i, j) + b(i, j) * {s}.5",
            "    end do",
            "  end do",
        ]
    out.append(f"end subroutine s{k}")
    return out


def main():
    kind, units = sys.argv[1], int(sys.argv[2])
    make = {"hpf": hpf, "plain": plain}[kind]
    lines = []
    for k in range(units):
        lines += make(k)
    if kind == "plain":
        lines += ["program main", "  real :: a(100, 100), b(100, 100)"]
        lines += [f"  call s{k}(a, b, 100, 100)" for k in range(units)]
        lines.append("end program main")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
