#!/usr/bin/env bash
# Fetch a body of real Fortran that nobody here wrote: the Debian source packages of
# LAPACK (thousands of fixed-form and free-form files) and MUMPS (free-form Fortran 90 with
# MPI calls and cpp conditionals). ScaLAPACK would be the natural second package, but its
# orig tarball is missing on this machine's Debian mirror (404 on 2026-11-21).
# Usage: tests/corpus/fetch.sh DEST   (idempotent: does nothing when DEST/.complete exists)
# With COSTLINE_OFFLINE=1 it fetches nothing: exit 75 when the corpus is missing.
set -euo pipefail
dest=${1:?usage: fetch.sh DEST}
[ -f "$dest/.complete" ] && exit 0
if [ -n "${COSTLINE_OFFLINE:-}" ] && [ "${COSTLINE_OFFLINE}" != 0 ]; then
    echo "fetch.sh: $dest has no corpus and COSTLINE_OFFLINE is set: not fetched" >&2
    exit 75
fi
mkdir -p "$dest"

# apt-get source needs deb-src indexes: mirror the machine's deb entries as deb-src ones.
src_list=/etc/apt/sources.list.d/costline-deb-src.sources
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    for f in /etc/apt/sources.list.d/*.sources; do
        [ "$f" = "$src_list" ] && continue
        grep -q 'deb.debian.org' "$f" || continue
        sed 's/^Types: deb$/Types: deb-src/' "$f"
        echo
    done | $sudo_cmd tee "$src_list" >/dev/null
    $sudo_cmd apt-get update -qq
fi

cd "$dest"
apt-get source --download-only -qq lapack mumps >/dev/null
for t in *.orig.tar.*; do
    tar xf "$t"
done
touch .complete
