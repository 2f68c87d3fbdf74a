#!/usr/bin/env bash
# Copies the NAS Parallel Benchmarks (read-only in SRC, default ../shared/corpus/npb) to
# DEST and generates each benchmark's `npbparams.h` for class NPB_CLASS (default S)
# with the suite's own sys/setparams.c, as the NPB Makefiles do. Idempotent; prints
# nothing on success.
# Usage: [NPB_CLASS=W] tests/npb/prepare.sh DEST [SRC]
set -euo pipefail
dest=${1:?usage: prepare.sh DEST [SRC]}
src=${2:-$(cd "$(dirname "$0")/../.." && pwd)/../shared/corpus/npb}
class=${NPB_CLASS:-S}
if [ ! -d "$src/NPB3.0-HPF" ] || [ ! -d "$src/NPB3.4-MPI" ]; then
  echo "prepare.sh: the NPB corpus is not at $src (set COSTLINE_NPB)" >&2
  exit 1
fi
cc=$(command -v cc || command -v gcc || true)
if [ -z "$cc" ]; then
  echo "prepare.sh: a C compiler (cc or gcc) is needed to build setparams" >&2
  exit 1
fi
mkdir -p "$dest"
for suite in NPB3.0-HPF NPB3.4-MPI; do
  [ -f "$dest/$suite/.prepared" ] && continue
  # Built aside and moved into place: an interrupted or concurrent run leaves no
  # half-prepared copy behind.
  work=$(mktemp -d "$dest/.$suite.XXXXXX")
  cp -r "$src/$suite/." "$work/"
  chmod -R u+w "$work"
  "$cc" -w -o "$work/sys/setparams" "$work/sys/setparams.c"
  for bench in "$work"/*/; do
    name=$(basename "$bench")
    case $name in common|sys|config|MPI_dummy|test_scripts|DT|IS) continue ;; esac
    [ -f "$bench/Makefile" ] || continue
    lower=$(echo "$name" | tr 'A-Z' 'a-z')
    (cd "$bench" && ../sys/setparams "$lower" "$class" >/dev/null 2>&1 || true)
    if [ ! -f "$bench/npbparams.h" ]; then
      echo "prepare.sh: setparams wrote no npbparams.h for $suite/$name" >&2
      exit 1
    fi
  done
  touch "$work/.prepared"
  rm -rf "${dest:?}/$suite"
  mv "$work" "$dest/$suite" 2>/dev/null || rm -rf "$work"
done
