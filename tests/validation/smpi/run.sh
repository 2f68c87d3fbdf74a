#!/usr/bin/env bash
# The SMPI validation harness (issue 27): costline's per-rank MPI predictions against a
# SimGrid SMPI simulation of the same programs on the same network, computation off.
#
#   bash tests/validation/smpi/run.sh [--quick] [--no-build] [--costline PATH]
#                                      [--gate counts] [--network cm02|smpi|both]
#
# For every configuration (programs/*.f90 with the sizes below, at 4 and 16 ranks) it
# writes params.h, builds the program with smpif90, runs it under smpirun on
# platform.xml (coll-selector:mpich) with the PMPI counter (pmpi_count.c) preloaded, and
# runs `costline check --format json` on the same sources. Two networks:
#   cm02  SMPI's pure alpha-beta model (network/model:CM02), predicted with the machine
#         model shipped for it, machines/smpi-cluster.toml; times gated at 15%;
#   smpi  SMPI's default model (piecewise latency and bandwidth factors by message
#         size, eager/rendezvous), predicted with a model `costline train --network-only
#         --quick --mpirun-nodes "smpirun ..."` measures on the same platform first
#         ($OUT/smpi-trained.toml); times gated at 25%.
# compare.py prints per rank and per program: messages and bytes sent and received
# (predicted = simulated?), collective calls, and the communication time (the slowest
# rank's), and writes the table to target/validation/smpi/table-NETWORK.md. Exit status
# 1 when a count differs, the Jacobi decompositions are ranked differently, or (unless
# `--gate counts`) a time is off by more than the network's tolerance.
#
# Then NPB3.4-MPI CG, MG, FT, LU, SP and BT class S at 4 and 16 ranks (npb.sh; the
# corpus from COSTLINE_NPB, default ../shared/corpus/npb).
#
# --quick: 4 ranks and the smallest sizes only, NPB CG alone, CM02 alone (what `cargo
# test` runs, in server/tests/smpi_harness.rs). --network: which networks (default: both,
# cm02 with --quick). --costline PATH: that binary instead of building the release one.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
here="$root/tests/validation/smpi"
out="${COSTLINE_SMPI_OUT:-$root/target/validation/smpi}"
quick=0
build=1
gate=all
networks=""
costline="$root/target/release/costline"
usage="usage: run.sh [--quick] [--no-build] [--costline PATH] [--gate counts] [--network cm02|smpi|both]"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --no-build) build=0 ;;
    --costline) costline="$2"; build=0; shift ;;
    --gate) gate="$2"; shift ;;
    --network) networks="$2"; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
  shift
done
case "$costline" in /*) ;; *) costline="$PWD/$costline" ;; esac
case "$networks" in
  "") if [ "$quick" = 1 ]; then networks="cm02"; else networks="cm02 smpi"; fi ;;
  both) networks="cm02 smpi" ;;
  cm02|smpi) ;;
  *) echo "$usage" >&2; exit 2 ;;
esac
for tool in smpif90 smpirun gcc python3; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool not found (apt-get install simgrid libsimgrid-dev gfortran)" >&2; exit 2; }
done
if [ "$build" = 1 ]; then
  (cd "$root" && cargo build --release --locked -q -p costline-server)
fi
mkdir -p "$out"
gcc -O2 -shared -fPIC -I/usr/include/smpi "$here/pmpi_count.c" -o "$out/libpmpi_count.so" -lsimgrid
for i in $(seq 0 63); do echo "node-$i"; done > "$out/hostfile"

# smpirun on the platform, with the network's model ($model_cfg) and MPICH's selector.
simulate() {
  smpirun -platform "$here/platform.xml" -hostfile "$out/hostfile" \
    --cfg=smpi/simulate-computation:0 $model_cfg --cfg=smpi/coll-selector:mpich "$@"
}

# One configuration: NAME PROGRAM RANKS PARAMS (the text of params.h's declaration).
run() {
  local name="$1" program="$2" ranks="$3" params="$4"
  local dir="$runs/$name"
  mkdir -p "$dir"
  cp "$here/programs/$program.f90" "$dir/"
  printf '      integer, parameter :: %s\n' "$params" > "$dir/params.h"
  (cd "$dir" && smpif90 -O1 "$program.f90" -o prog >build.log 2>&1) || {
    echo "run.sh: $name does not build:" >&2; cat "$dir/build.log" >&2; exit 1; }
  (cd "$dir" && LD_PRELOAD="$out/libpmpi_count.so" simulate -np "$ranks" ./prog >run.log 2>&1) || {
    echo "run.sh: $name fails under smpirun:" >&2; tail -20 "$dir/run.log" >&2; exit 1; }
  grep '^pmpi ' "$dir/run.log" > "$dir/simulated.txt"
  "$costline" check "$dir/$program.f90" --machine "$machine" --param "nprocs=$ranks" \
    --format json > "$dir/predicted.json"
  printf '%s\t%s\t%s\t%s\n' "$name" "$program" "$ranks" "$params" >> "$runs/index.tsv"
}

status=0
for network in $networks; do
runs="$out/runs-$network"
rm -rf "$runs"  # (the NPB build in $out/npb is kept)
mkdir -p "$runs"
: > "$runs/index.tsv"
case "$network" in
  cm02)
    model_cfg="--cfg=network/model:CM02"
    machine="$root/machines/smpi-cluster.toml"
    tolerance=0.15 ;;
  smpi)
    model_cfg=""
    machine="$out/smpi-trained.toml"
    tolerance=0.25
    rm -f "$machine"
    echo "run.sh: training $machine under smpirun (SMPI's default network model)" >&2
    # --quick: 2 and 4 ranks for the collectives (10 s; the full plan's 16 ranks take
    # 8 minutes of simulation).
    MPIFC=smpif90 "$costline" train --network-only --quick --name smpi-trained \
      --mpirun-nodes "smpirun -platform $here/platform.xml -hostfile $out/hostfile --cfg=smpi/simulate-computation:0 --cfg=smpi/coll-selector:mpich" \
      --out "$machine" 2>"$out/train-smpi.log" || {
        echo "run.sh: costline train under smpirun failed:" >&2; tail -20 "$out/train-smpi.log" >&2; exit 1; } ;;
esac
if [ "$quick" = 1 ]; then ranks_list="4"; sizes="64"; else ranks_list="4 16"; sizes="64 256 1024"; fi
for p in $ranks_list; do
  s=$(python3 -c "import math; print(int(math.isqrt($p)))")
  for n in $sizes; do
    for shape in "$p 1" "1 $p" "$s $s"; do
      set -- $shape
      run "jacobi2d-n$n-${1}x$2" jacobi2d "$p" "n = $n, px = $1, py = $2, niter = 20"
    done
  done
  for m in 1 1000 100000; do
    [ "$quick" = 1 ] && [ "$m" = 100000 ] && continue
    run "ring-m$m-p$p" ring "$p" "m = $m, steps = 10"
  done
  run "master_worker-p$p" master_worker "$p" "task = 1000, res = 100, rounds = 5"
done
# shellcheck source=npb.sh
. "$here/npb.sh"
echo "== network: $network (times gated at $tolerance)"
python3 "$here/compare.py" "$runs" "$gate" "$tolerance" "$out/table-$network.md" || status=1
done
exit $status
