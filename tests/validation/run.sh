#!/usr/bin/env bash
# The accuracy harness of issue 7: costline's predicted run time of Fortran kernels
# against their measured run time on this machine.
#
#   bash tests/validation/run.sh [--machine PATH] [--quick] [--no-build] [--tolerance F]
#
#   --machine PATH  the machine model to predict with; default target/validation/machine.toml,
#                   written by `costline train` when it does not exist yet
#   --quick         shorter timings (one round of >= 0.2 s per size instead of three rounds
#                   of >= 0.7 s) and `train --quick`
#   --no-build      use the existing target/release/costline instead of running cargo
#   --tolerance F   largest accepted |predicted - measured| / measured (default 0.25)
#
# What it does: builds the release binary; compiles every kernels/K.f90 with gfortran -O2
# separately from driver.f90 (so each call is a real call of the very code costline reads);
# times it at three sizes (minimum over batches and rounds of the time per call, caches warm: the
# steady state of a kernel called over and over); runs
#   costline check kernels/K.f90 --machine MODEL --param n=N --format json
# and takes `metrics.time_s` of the subroutine's unit as the prediction for one call. With
# mpif90/mpirun present, the same for the 2-process Jacobi iteration with a halo exchange
# (mpi/jacobi_step.f90, timed by mpi/jacobi_halo.f90 under `mpirun -np 2`, analyzed with
# --param n=N --param m=N/2 --param p=2). compare.py prints the table (kernel, n, working
# set, predicted, measured, error %) and writes it to target/validation/table.md.
# Exit status: 0 when every row is within the tolerance, 1 when one is not or has no
# prediction, 2 on a usage or build error.
#
# Sizes: four per kernel, chosen by working set (the bytes a call touches) to cover the
# memory hierarchy of the reference machine (AMD EPYC: 32 KiB L1d, 1 MiB L2, an L3 that acts
# like ~4 MiB per core on this VM): ~25 KiB (L1-resident), ~300-500 KiB (L2-resident),
# ~2-2.5 MiB (L3-resident), > 40 MiB (memory). The first three are gated (|error| <= the
# tolerance); the memory-resident rows are reported but not gated: issue 7's memory term is
# a roofline over per-level bandwidths, which misses DRAM streams that restart every column
# (prefetch) and bandwidth shared by ranks; the cache-line model of issue 8 is where they
# are modelled. Working sets:
#   jacobi      16 n^2            n = 40 (25 KiB), 160 (400 KiB), 400 (2.4 MiB), 2000 (61 MiB)
#   matvec      8 n^2 + 16 n      n = 56 (25 KiB), 200 (316 KiB), 550 (2.3 MiB), 3000 (69 MiB)
#   triangular  ~4 n^2 + 8 n      n = 80 (26 KiB), 300 (354 KiB), 750 (2.2 MiB), 4000 (61 MiB)
#                (the lower triangle of l only)
#   livermore1  24 n + 88         n = 1000 (23 KiB), 16000 (375 KiB), 1e5 (2.3 MiB), 2e6 (46 MiB)
#   livermore7  32 n + 48         n = 800 (25 KiB), 12000 (375 KiB), 8e4 (2.4 MiB), 1.5e6 (46 MiB)
#   jacobi_halo 16 n (n/2 + 2) per process, 2 processes:
#                                 n = 64 (34 KiB), 256 (520 KiB), 512 (2 MiB each), 2048 (32 MiB each)
# Timings are only as good as the machine is quiet: run it with nothing else busy (a
# parallel build on a 2-core machine doubles the MPI times).
set -u -o pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

machine=""
quick=0
build=1
tolerance=0.25
usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case "$1" in
    --machine) [ $# -ge 2 ] || { usage >&2; exit 2; }; machine="$2"; shift 2 ;;
    --machine=*) machine="${1#--machine=}"; shift ;;
    --quick) quick=1; shift ;;
    --no-build) build=0; shift ;;
    --tolerance) [ $# -ge 2 ] || { usage >&2; exit 2; }; tolerance="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

out="$root/target/validation"
bin="$root/target/release/costline"
build_dir="$out/build"
json_dir="$out/reports"
mkdir -p "$build_dir" "$json_dir"
FC="${FC:-gfortran}"
MPIFC="${MPIFC:-mpif90}"
FFLAGS="-O2"
if [ "$quick" = 1 ]; then batch_s=0.04; batches=5; rounds=1; else batch_s=0.1; batches=7; rounds=3; fi

say() { printf '== %s\n' "$*" >&2; }

# ---- 1. the binary ---------------------------------------------------------------------
if [ "$build" = 1 ]; then
  say "cargo build --release -p costline-server"
  cargo build --release -p costline-server || { echo "run.sh: the build failed" >&2; exit 2; }
fi
[ -x "$bin" ] || { echo "run.sh: $bin missing (run without --no-build)" >&2; exit 2; }

# ---- 2. the machine model ----------------------------------------------------------------
check_has_machine=0
"$bin" check --help 2>/dev/null | grep -q -- '--machine' && check_has_machine=1
machine_note=""
if [ -n "$machine" ] && [ ! -s "$machine" ]; then
  echo "run.sh: --machine $machine: no such file" >&2
  exit 2
fi
if [ -z "$machine" ]; then
  machine="$out/machine.toml"
  if [ ! -s "$machine" ]; then
    if "$bin" train --help >/dev/null 2>&1; then
      train_args=(--out "$machine")
      if [ "$quick" = 1 ] && "$bin" train --help 2>/dev/null | grep -q -- '--quick'; then
        train_args=(--quick "${train_args[@]}")
      fi
      say "costline train ${train_args[*]}"
      "$bin" train "${train_args[@]}" || echo "run.sh: costline train failed" >&2
    else
      echo "run.sh: this costline has no 'train' subcommand" >&2
    fi
  fi
fi
machine_args=()
if [ ! -s "$machine" ]; then
  machine_note="no machine model ($machine missing): costline's default"
  echo "run.sh: $machine_note" >&2
elif [ "$check_has_machine" = 0 ]; then
  machine_note="costline check has no --machine yet: its default model, not $machine"
  echo "run.sh: $machine_note" >&2
else
  machine_args=(--machine "$machine")
  machine_note="machine model $machine"
fi

# ---- 3. kernels: compile, time, predict ------------------------------------------------
rows="$out/rows.tsv"
printf 'kernel\tn\tunit\tworking_set_bytes\tmeasured_s\treport_json\tnote\n' >"$rows"

# predict KERNEL_FILE UNIT TAG PARAM... : the JSON report's path on stdout ("" on failure)
predict() {
  local file="$1" tag="$3"; shift 3
  local params=() p
  for p in "$@"; do params+=(--param "$p"); done
  local json="$json_dir/$tag.json"
  if "$bin" check "$file" "${machine_args[@]}" "${params[@]}" --format json >"$json" 2>"$json_dir/$tag.stderr"; then
    echo "$json"
  else
    echo "run.sh: costline check $file ${params[*]} failed (see $json_dir/$tag.stderr)" >&2
    echo ""
  fi
}

# measured seconds from a driver's output ("n/a" when it has none)
seconds_of() { awk '$1 == "seconds_per_call" { print $2; found = 1 } END { if (!found) print "n/a" }'; }

kernels=(jacobi matvec triangular livermore1 livermore7)
declare -A sizes=(
  [jacobi]="40 160 400 2000"
  [matvec]="56 200 550 3000"
  [triangular]="80 300 750 4000"
  [livermore1]="1000 16000 100000 2000000"
  [livermore7]="800 12000 80000 1500000"
)
working_set() {
  local k="$1" n="$2"
  case "$k" in
    jacobi) echo $((16 * n * n)) ;;
    matvec) echo $((8 * n * n + 16 * n)) ;;
    triangular) echo $((4 * n * (n + 1) + 8 * n)) ;;
    livermore1) echo $((24 * n + 88)) ;;
    livermore7) echo $((32 * n + 48)) ;;
    jacobi_halo) echo $((2 * 16 * n * (n / 2 + 2))) ;;
  esac
}

command -v "$FC" >/dev/null || { echo "run.sh: $FC not found" >&2; exit 2; }
# Code placement: on this machine a tight loop runs up to 2x faster or slower depending
# only on where the linker puts it (costline train saw 0.28 vs 0.55 ns per iteration for
# one kernel). A prediction cannot know the placement, so each kernel is measured at
# three placements -- the user's flags, plus -falign-functions=32 and =64, which only move
# code -- and the measured time is their mean (the spread is in the note), exactly as
# `costline train` measures its kernels.
placements=("" "-falign-functions=32" "-falign-functions=64")
for pl in 0 1 2; do
  objs=()
  for k in "${kernels[@]}"; do
    "$FC" $FFLAGS ${placements[$pl]} -c "$here/kernels/$k.f90" -o "$build_dir/$k.$pl.o" \
      || { echo "run.sh: cannot compile kernels/$k.f90" >&2; exit 2; }
    objs+=("$build_dir/$k.$pl.o")
  done
  "$FC" $FFLAGS "$here/driver.f90" "${objs[@]}" -J "$build_dir" -o "$build_dir/driver.$pl" \
    || { echo "run.sh: cannot build the driver" >&2; exit 2; }
done

# The whole set of timings runs in $rounds rounds, each row's time at each placement being
# its minimum over them: a disturbance (another process on the other core, a neighbour on
# the VM's memory bus) rarely spans every round of a row.
declare -A best=()
keep_min() { # keep_min KEY SECONDS
  local key="$1" t="$2"
  [ "$t" = n/a ] && return
  if [ -z "${best[$key]:-}" ] || awk -v a="$t" -v b="${best[$key]}" 'BEGIN { exit !(a < b) }'; then
    best[$key]="$t"
  fi
}
# mean_of KEY: the mean over the placements of KEY's minima, and the spread as a note.
mean_of() {
  local key="$1"
  local ts="${best[$key 0]:-n/a} ${best[$key 1]:-n/a} ${best[$key 2]:-n/a}"
  awk -v ts="$ts" 'BEGIN { n = split(ts, t, " "); s = 0; k = 0; lo = 1e300; hi = 0
    for (i = 1; i <= n; i++) if (t[i] != "n/a") { s += t[i]; k++; if (t[i] < lo) lo = t[i]; if (t[i] > hi) hi = t[i] }
    if (k == 0) { print "n/a\t"; exit }
    printf "%.4e\tplacements %.3e..%.3e\n", s / k, lo, hi }'
}

mpi=0
if ! command -v "$MPIFC" >/dev/null || ! command -v mpirun >/dev/null; then
  echo "run.sh: $MPIFC or mpirun not found: skipping the MPI rows" >&2
else
  mpi=1
  for pl in 0 1 2; do
    if ! { "$MPIFC" $FFLAGS ${placements[$pl]} -c "$here/mpi/jacobi_step.f90" -o "$build_dir/jacobi_step.$pl.o" &&
           "$MPIFC" $FFLAGS "$here/mpi/jacobi_halo.f90" "$build_dir/jacobi_step.$pl.o" -o "$build_dir/jacobi_halo.$pl"; }; then
      echo "run.sh: cannot build the MPI Jacobi: skipping the MPI rows" >&2
      mpi=0
    fi
  done
  mpirun_args=(-np 2)
  if mpirun --version 2>/dev/null | grep -qi 'open mpi'; then
    # fewer than 2 cores: let Open MPI start 2 processes anyway
    [ "$(nproc 2>/dev/null || echo 2)" -lt 2 ] && mpirun_args+=(--oversubscribe)
    [ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
fi
mpi_sizes="64 256 512 2048"

for round in $(seq 1 "$rounds"); do
  for k in "${kernels[@]}"; do
    for n in ${sizes[$k]}; do
      say "round $round/$rounds: $k n=$n"
      for pl in 0 1 2; do
        keep_min "$k $n $pl" "$("$build_dir/driver.$pl" "$k" "$n" "$batch_s" "$batches" \
                                | tee "$json_dir/$k-$n.timing.$round.$pl" | seconds_of)"
      done
    done
  done
  if [ "$mpi" = 1 ]; then
    for n in $mpi_sizes; do
      say "round $round/$rounds: jacobi_halo n=$n (mpirun ${mpirun_args[*]})"
      for pl in 0 1 2; do
        t=$(mpirun "${mpirun_args[@]}" "$build_dir/jacobi_halo.$pl" "$n" "$batch_s" "$batches" \
              | tee "$json_dir/jacobi_halo-$n.timing.$round.$pl" | seconds_of)
        [ "$t" = n/a ] && echo "run.sh: mpirun -np 2 jacobi_halo $n gave no time" >&2
        keep_min "jacobi_halo $n $pl" "$t"
      done
    done
  fi
done

for k in "${kernels[@]}"; do
  for n in ${sizes[$k]}; do
    json=$(predict "$here/kernels/$k.f90" "$k" "$k-$n" "n=$n")
    IFS=$'\t' read -r measured note < <(mean_of "$k $n")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$k" "$n" "$k" "$(working_set "$k" "$n")" \
      "$measured" "$json" "$note" >>"$rows"
  done
done

# ---- 4. MPI: the Jacobi iteration with a halo exchange on 2 processes --------------------
# predicted: jacobi_step with m = n/2 local columns and p = 2 processes
if [ "$mpi" = 1 ]; then
  for n in $mpi_sizes; do
    json=$(predict "$here/mpi/jacobi_step.f90" jacobi_step "jacobi_halo-$n" "n=$n" "m=$((n / 2))" "p=2")
    IFS=$'\t' read -r measured note < <(mean_of "jacobi_halo $n")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "jacobi_halo (2 procs)" "$n" jacobi_step \
      "$(working_set jacobi_halo "$n")" "$measured" "$json" "$note" >>"$rows"
  done
fi

# ---- 5. the table ------------------------------------------------------------------------
header="costline $("$bin" --version 2>/dev/null | awk '{print $2}'), $machine_note; $FC $FFLAGS; $(date -u +%Y-%m-%dT%H:%MZ); load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
python3 "$here/compare.py" "$rows" "$out/table.md" --tolerance "$tolerance" --header "$header" \
  --gate-max-bytes $((16 * 1024 * 1024))
