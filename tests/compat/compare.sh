#!/usr/bin/env bash
# Captures the outputs of two costline binaries (capture.sh) and compares them byte for
# byte: exit 0 when they are identical; 1 with the differences (diff -r) otherwise, the
# two captures then kept for a closer look.
# Usage: tests/compat/compare.sh OLD_BIN NEW_BIN
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OLD_BIN NEW_BIN" >&2; exit 2; }
here=$(dirname "$0")
tmp=$(mktemp -d)
"$here/capture.sh" "$1" "$tmp/old"
"$here/capture.sh" "$2" "$tmp/new"
cd "$tmp"
if diff -r old new; then
    echo "compat: identical outputs ($(wc -l <old/index.tsv) runs)"
    rm -rf "$tmp"
else
    echo "compat: the outputs differ; the captures are in $tmp/old and $tmp/new" >&2
    exit 1
fi
