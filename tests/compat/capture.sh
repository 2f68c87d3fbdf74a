#!/usr/bin/env bash
# Runs a costline binary over every fixture in tests/fixtures and writes each output to
# its own file under OUTDIR: NAME.out (stdout), NAME.err (stderr, when not empty), and a
# line "exit-status<TAB>NAME<TAB>arguments" in OUTDIR/index.tsv. Two captures, of the
# binary before and after a change, should be byte-identical (tests/compat/compare.sh).
# Usage: tests/compat/capture.sh BIN OUTDIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BIN OUTDIR" >&2; exit 2; }
[ -z "$(ls -A "$2" 2>/dev/null)" ] || { echo "$0: $2 is not empty" >&2; exit 2; }
bin=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
cd "$(dirname "$0")/../.." # the repository root: the paths in the outputs are relative
export LC_ALL=C            # the order of sort and of globs
# Only the repository's machine models (./machines, tests/fixtures/machines), not the user's.
unset COSTLINE_MACHINES
export XDG_CONFIG_HOME=/nonexistent
export RUST_BACKTRACE=0

# run_any NAME COMMAND...: runs COMMAND into NAME.out and NAME.err, its status into
# index.tsv. The one path that differs between captures, OUTDIR's (compare --svg prints
# `plot written to OUTDIR/...`), is written OUTDIR; the binary's path in index.tsv BIN.
run_any() {
    local name=$1 rc=0 args
    shift
    mkdir -p "$(dirname "$out/$name")"
    "$@" >"$out/$name.out" 2>"$out/$name.err" || rc=$?
    sed -i "s|$out/|OUTDIR/|g" "$out/$name.out" "$out/$name.err"
    [ -s "$out/$name.err" ] || rm "$out/$name.err"
    args="${*//"$bin"/BIN}"
    printf '%s\t%s\t%s\n' "$rc" "$name" "${args//"$out"/OUTDIR}" >>"$out/index.tsv"
}
# run NAME ARG...: costline ARG...
run() { local name=$1; shift; run_any "$name" "$bin" "$@"; }

: >"$out/index.tsv"
fx=tests/fixtures
# The Fortran sources (the extensions `costline serve` analyzes; headers are INCLUDEd).
mapfile -t files < <(find "$fx" -type f -regextype posix-extended \
    -iregex '.*\.(f|for|ftn|f77|fpp|hpf|f90|f95|f03|f08|f18)' | sort)
# the sources directly in directory $1
sources_in() { printf '%s\n' "${files[@]}" | grep "^$1/[^/]*$" | tr '\n' ' '; }

# Files analyzed together, NAME|ARGUMENTS: each directory's sources, and a few more.
groups=()
for dir in $(printf '%s\n' "${files[@]%/*}" | sort -u); do
    groups+=("${dir#"$fx"/}/_together|$(sources_in "$dir")")
done
groups+=(
    "free/jacobi_hpf+grid_params|$fx/free/jacobi_hpf.f90 $fx/free/grid_params.f90"
    "include/_together+sizes|$(sources_in "$fx/include") --include $fx/include/sizes"
    "_all|${files[*]}"
)
# Settings of check, NAME|ARGUMENTS.
settings=(
    "default|"
    "n64_p4|--param n=64 --param p=4"
    "ipsc860|--machine ipsc860"
    "hockney|--machine $fx/machines/hockney.toml"
    "small-cache|--machine $fx/machines/small-cache.toml"
    "threshold0.05|--imbalance-threshold 0.05"
)
for setting in "${settings[@]}"; do
    s=${setting%%|*} args=${setting#*|}
    for f in "${files[@]}"; do
        run "check/$s/${f#"$fx"/}.text" check "$f" $args
        run "check/$s/${f#"$fx"/}.json" check "$f" $args --format json
    done
    for group in "${groups[@]}"; do
        g=${group%%|*} gargs=${group#*|}
        run "check/$s/$g.text" check $gargs $args
        run "check/$s/$g.json" check $gargs $args --format json
    done
done

# compare: every source with a DISTRIBUTE directive, and sources that need others.
comparisons=()
for f in $(grep -lis 'distribute' "${files[@]}"); do comparisons+=("${f#"$fx"/}|$f"); done
comparisons+=(
    "free/jacobi_hpf+grid_params|$fx/free/jacobi_hpf.f90 $fx/free/grid_params.f90"
    "include/_together+sizes|$(sources_in "$fx/include") --include $fx/include/sizes"
    "modules/grid+solver|$fx/modules/grid.f90 $fx/modules/solver.f90"
    "common/_together|$(sources_in "$fx/common")"
)
range="--param n=16..64 --procs 4,16"
for c in "${comparisons[@]}"; do
    name=compare/${c%%|*} args=${c#*|}
    run "$name.text" compare $args $range --svg "$out/$name.svg"
    run "$name.json" compare $args $range --format json
done
jacobi="$fx/free/grid_params.f90 $fx/free/jacobi_hpf.f90"
run compare/jacobi_ipsc860.text compare $jacobi --param n=8..64 --procs 2,4 --top 2 \
    --machine ipsc860 --svg "$out/compare/jacobi_ipsc860.svg"
run compare/jacobi_ipsc860.json compare $jacobi --param n=8..64 --procs 2,4 --top 2 \
    --machine ipsc860 --format json
run compare/jacobi_procs_range.text compare $jacobi --param n=32 --procs 2..16
run compare/redblack_hockney.text compare $fx/fixed/redblack.f $range --machine $fx/machines/hockney.toml

# The machine models, from here (./machines) and from a directory without ./machines.
run machines/root machines
(cd "$fx" && run machines/fixtures machines)

# Help, version and the errors users see.
run cli/help --help
for cmd in check compare machines serve train; do run "cli/help_$cmd" "$cmd" --help; done
run cli/version --version
run cli/no_command
run cli/missing_file check $fx/does-not-exist.f90 $fx/free/control_flow.f90
run cli/bad_param check --param N=x $fx/free/control_flow.f90
run cli/bad_format check --format xml $fx/free/control_flow.f90
run cli/bad_machine check --machine no-such-machine $fx/free/control_flow.f90
run cli/bad_range compare $fx/fixed/redblack.f --param n=64..16

# The language server: every source open in one session (the workspace: this directory),
# with the default settings and with the settings of the editor.
lsp=tests/compat/lsp_dump.py
run_any lsp/default python3 $lsp "$bin" "${files[@]}"
run_any lsp/n64_p4_ipsc860 python3 $lsp --settings '{"params": {"n": 64, "p": 4}, "machine": "ipsc860"}' \
    "$bin" "${files[@]}"
