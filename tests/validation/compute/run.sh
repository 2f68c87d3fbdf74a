#!/usr/bin/env bash
# Held-out validation of costline's computation-time predictions: random loop kernels,
# the 24 Livermore loops and BLAS/stencil loops, timed on this machine with gfortran and
# compared with `costline check --format json` (metrics.time_s of the kernel's subroutine).
#
#   bash tests/validation/compute/run.sh [--quick] [--machine PATH] [--seeds S1,S2,...]
#        [--count K] [--flags "-O2"] [--costline PATH] [--rounds R] [--gate] [--predict-only]
#        [--out DIR]
#
#   --quick          seed 1 x 12 random kernels; L1 and DRAM sizes only (a Livermore loop's
#                    standard length and DRAM); shorter batches (>= 0.02 s, 3 of them)
#   --machine PATH   machine model for costline (default target/validation/machine.toml if it
#                    exists, else machines/ib-hdr.toml)
#   --seeds LIST     random-kernel seeds (default 1,2,3; quick 1)
#   --count K        random kernels per seed (default 20; quick 12)
#   --flags F        gfortran flags (default -O2)
#   --costline PATH  the costline binary (default target/release/costline; never built here)
#   --rounds R       repeat all timings R times, keeping each row's minimum (default 1)
#   --gate           exit 1 when an accuracy criterion is missed (see compare.py)
#   --predict-only   keep the last run's kernels and timings (DIR/rows.tsv of --out)
#                    and only predict and compare again: for a changed costline or machine
#                    model; no compiling or timing, so it needs no quiet machine
#   --out DIR        where everything goes (default target/validation/compute)
#
# Steps: gen_kernels.py writes the random kernels (target/validation/compute/random/);
# gen_driver.py writes one timing driver per kernel and the plan (kernel x size); every
# kernel is compiled on its own with `gfortran FLAGS -c` (recording -fopt-info-vec-all) at
# three code placements (FLAGS, plus -falign-functions=32 and =64, which only move code --
# a tight loop can run up to 2x faster or slower by placement alone) and linked with its
# driver; each (kernel, n) is timed at each placement (minimum time per call over batches)
# and the measured time is the mean over the placements; `costline check KERNEL.f90
# --machine M --param n=N --format json` gives the prediction; where that report rests on a
# count the text cannot settle (a trip count or branch probability "assumed by default":
# Livermore loops 2, 15, 16, 17, 20, 24), one profile run of the driver at that size
# (`costline profile DRIVER KERNEL -- N 0 1`, three calls) measures it and the row is
# predicted with `--profile` (note "profiled"), as P^3T+ takes such frequencies from a
# profile run; compare.py prints and writes target/validation/compute/table.md, summary.md
# and results.json.
# Exit status: 0 (1 with --gate when a criterion is missed), 2 on a usage or setup error.
# Timings need a quiet machine: on 2 cores a concurrent build slows rows by 20-100%.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
cd "$root"

quick=0
machine=""
seeds=""
count=""
flags="-O2"
costline="$root/target/release/costline"
rounds=1
gate=0
predict_only=0
out="$root/target/validation/compute"
usage() { sed -n '6,23p' "$0" | sed 's/^# \{0,1\}//'; }
need() { [ "$2" -ge 2 ] || { echo "run.sh: $1 needs a value" >&2; usage >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --machine) need "$1" $#; machine="$2"; shift 2 ;;
    --seeds) need "$1" $#; seeds="$2"; shift 2 ;;
    --count) need "$1" $#; count="$2"; shift 2 ;;
    --flags) need "$1" $#; flags="$2"; shift 2 ;;
    --costline) need "$1" $#; costline="$2"; shift 2 ;;
    --rounds) need "$1" $#; rounds="$2"; shift 2 ;;
    --gate) gate=1; shift ;;
    --predict-only) predict_only=1; shift ;;
    --out) need "$1" $#; out="$(mkdir -p "$2" && cd "$2" && pwd)"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
done

start_s=$(date +%s)
export PYTHONDONTWRITEBYTECODE=1
FC="${FC:-gfortran}"
command -v "$FC" >/dev/null || { echo "run.sh: $FC not found" >&2; exit 2; }
[ -x "$costline" ] || { echo "run.sh: $costline is not an executable (build it, or --costline PATH)" >&2; exit 2; }
read -r -a flag_args <<<"$flags"
if [ "$quick" = 1 ]; then
  seeds="${seeds:-1}"; count="${count:-12}"; batch_s=0.02; batches=3; plan_args=(--quick)
else
  seeds="${seeds:-1,2,3}"; count="${count:-20}"; batch_s=0.1; batches=5; plan_args=()
fi
if [ -z "$machine" ]; then
  machine="$root/target/validation/machine.toml"
  [ -s "$machine" ] || machine="$root/machines/ib-hdr.toml"
fi
[ -s "$machine" ] || { echo "run.sh: machine model $machine: no such file" >&2; exit 2; }

say() { printf '== %s\n' "$*" >&2; }
binary_label() { echo "costline $("$costline" --version 2>/dev/null | awk '{print $2}') (binary of $(date -u -r "$costline" +%Y-%m-%dT%H:%MZ)), machine model ${machine#"$root"/}"; }
gate_args=()
if [ "$gate" = 1 ]; then gate_args=(--gate); fi

check_once() { # check_once SOURCE JSON ARGS... (retries: the binary may be replaced under us)
  local src="$1" json="$2" try; shift 2
  for try in 1 2 3; do
    if "$costline" check "$src" --machine "$machine" "$@" --format json >"$json" 2>"${json%.json}.stderr"; then
      return 0
    fi
    sleep 3
  done
  return 1
}

# predict SOURCE JSON DRIVER N PARAMS...: the report in JSON; when it assumes a count the
# text cannot settle, one profile run of DRIVER (with the kernel) at size N measures it
# and the kernel is predicted again with that profile. Prints "profiled" when it was, or
# why the profile failed (the assumed counts stay).
predict() {
  local src="$1" json="$2" drv="$3" n="$4"; shift 4
  local pargs=() p
  for p in "$@"; do pargs+=(--param "$p"); done
  check_once "$src" "$json" "${pargs[@]}" || return 1
  grep -q 'assumed by default' "$json" || return 0
  local prof="${json%.json}.profile.json"
  # (The driver's `seconds_per_call` line names a time: profile does not compare it.)
  if ! "$costline" profile "$drv" "$src" --machine "$machine" --timeout 120 --out "$prof" \
      -- "$n" 0 1 >"${prof%.json}.log" 2>&1; then
    echo "profile failed (reports/$(basename "${prof%.json}.log"))"
    return 0
  fi
  check_once "$src" "$json" "${pargs[@]}" --profile "$prof" || return 1
  echo profiled
}

# ---- --predict-only: the last run's timings, predicted again ----------------------------
if [ "$predict_only" = 1 ]; then
  rows="$out/rows.tsv"
  [ -s "$rows" ] || { echo "run.sh: --predict-only needs a previous run's $rows" >&2; exit 2; }
  measured_rows="$out/rows.measured.tsv"
  # The first --predict-only keeps the run's own rows; later ones predict from those.
  [ -s "$measured_rows" ] || cp "$rows" "$measured_rows"
  head -n 1 "$measured_rows" >"$rows"
  say "costline check again on $(($(wc -l <"$measured_rows") - 1)) measured rows with $machine"
  while IFS=$'\t' read -r suite id unit src tag level n ws capped params measured spread json vec note; do
    read -r -a plist <<<"$params"
    note="${note%%costline check failed*}"; note="${note%%profile*}"; note="${note%; }"
    if how="$(predict "$src" "$json" "$(dirname "$vec")/driver.f90" "$n" "${plist[@]}")"; then
      note="${note:+$note${how:+; }}$how"
    else
      note="${note:+$note; }costline check failed (reports/$id-$n.stderr)"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$suite" "$id" "$unit" "$src" "$tag" \
      "$level" "$n" "$ws" "$capped" "$params" "$measured" "$spread" "$json" "$vec" "$note" >>"$rows"
  done < <(tail -n +2 "$measured_rows")
  header="$(binary_label); predictions only, on the timings of the last measured run; $(date -u +%Y-%m-%dT%H:%MZ)"
  exec python3 "$here/compare.py" "$rows" --out-dir "$out" --header "$header" --timings "$out/timings" "${gate_args[@]}"
fi

rm -rf "$out/random" "$out/build" "$out/reports" "$out/timings" "$out/rows.measured.tsv"
mkdir -p "$out/random" "$out/build" "$out/reports" "$out/timings"

# ---- 1. random kernels, drivers, plan ---------------------------------------------------
manifests=("$here/livermore/manifest.json" "$here/blas_stencil/manifest.json" "$here/pairs/manifest.json")
for s in ${seeds//,/ }; do
  python3 "$here/gen_kernels.py" --seed "$s" --count "$count" --out "$out/random/seed$s"
  manifests+=("$out/random/seed$s/manifest.json")
done
plan="$out/plan.tsv"
python3 "$here/gen_driver.py" --out "$out/build" --plan "$plan" "${plan_args[@]}" "${manifests[@]}"

# ---- 2. build: each kernel on its own, at three code placements ------------------------
placements=("" "-falign-functions=32" "-falign-functions=64")
declare -A build_note=()
build_one() { # build_one ID SOURCE DRIVER
  local id="$1" src="$2" drv="$3" kdir pl
  kdir="$(dirname "$drv")"
  "$FC" "${flag_args[@]}" -c "$drv" -J "$kdir" -o "$kdir/driver.o" 2>"$kdir/build.log" || return 1
  rm -f "$kdir/vec.txt"
  for pl in 0 1 2; do
    local extra=()
    if [ -n "${placements[$pl]}" ]; then extra+=("${placements[$pl]}"); fi
    if [ "$pl" = 0 ]; then extra+=("-fopt-info-vec-all=$kdir/vec.txt"); fi
    "$FC" "${flag_args[@]}" "${extra[@]}" -c "$src" -J "$kdir" -o "$kdir/kernel.$pl.o" 2>>"$kdir/build.log" || return 1
    "$FC" "${flag_args[@]}" "$kdir/driver.o" "$kdir/kernel.$pl.o" -o "$kdir/driver.$pl" 2>>"$kdir/build.log" || return 1
  done
}
nk=0
while IFS=$'\t' read -r id src drv; do
  nk=$((nk + 1))
  if ! build_one "$id" "$src" "$drv"; then
    build_note[$id]="build failed (see build/$id/build.log)"
    echo "run.sh: $id: build failed, see $out/build/$id/build.log" >&2
  fi
done < <(tail -n +2 "$plan" | cut -f2,4,5 | sort -u)
say "built $nk kernels with $FC $flags (x3 placements)"

# ---- 3. timings --------------------------------------------------------------------------
declare -A best=() run_note=()
keep_min() { # keep_min KEY SECONDS
  local key="$1" t="$2"
  [ "$t" = n/a ] && return 0
  if [ -z "${best[$key]:-}" ] || awk -v a="$t" -v b="${best[$key]}" 'BEGIN { exit !(a < b) }'; then
    best[$key]="$t"
  fi
}
field_of() { awk -v k="$1" '$1 == k { print $2; found = 1 } END { if (!found) print "n/a" }' "$2"; }
nrows=$(($(wc -l <"$plan") - 1))
for round in $(seq 1 "$rounds"); do
  i=0
  while IFS=$'\t' read -r suite id unit src drv tag level n ws capped params; do
    i=$((i + 1))
    if [ -n "${build_note[$id]:-}" ]; then continue; fi
    say "round $round/$rounds, $i/$nrows: $id n=$n ($tag)"
    kdir="$(dirname "$drv")"
    for pl in 0 1 2; do
      f="$out/timings/$id-$n.$round.$pl.txt"
      if ! "$kdir/driver.$pl" "$n" "$batch_s" "$batches" >"$f" 2>&1; then
        run_note["$id $n"]="driver failed (timings/$(basename "$f"))"
        continue
      fi
      keep_min "$id $n $pl" "$(field_of seconds_per_call "$f")"
      cs="$(field_of checksum "$f")"; sn="$(field_of subnormals "$f")"
      case "$cs" in *NaN*|*Inf*) run_note["$id $n"]="checksum $cs" ;; esac
      if [ "$sn" != 0 ] && [ "$sn" != n/a ]; then run_note["$id $n"]="$sn subnormal outputs"; fi
    done
  done < <(tail -n +2 "$plan")
done

# mean over the placements of the per-placement minima, and their spread
mean_of() {
  local key="$1"
  awk -v ts="${best[$key 0]:-n/a} ${best[$key 1]:-n/a} ${best[$key 2]:-n/a}" 'BEGIN {
    n = split(ts, t, " "); s = 0; k = 0; lo = 1e300; hi = 0
    for (i = 1; i <= n; i++) if (t[i] != "n/a") { s += t[i]; k++; if (t[i] < lo) lo = t[i]; if (t[i] > hi) hi = t[i] }
    if (k == 0) { print "n/a\t"; exit }
    printf "%.5e\tplacements %.3e..%.3e\n", s / k, lo, hi }'
}

# ---- 4. predictions ----------------------------------------------------------------------
rows="$out/rows.tsv"
printf 'suite\tid\tunit\tsource\ttag\tlevel\tn\tws_bytes\tcapped\tparams\tmeasured_s\tspread\treport_json\tvec_file\tnote\n' >"$rows"
say "costline check on $nrows (kernel, n) pairs with $machine"
while IFS=$'\t' read -r suite id unit src drv tag level n ws capped params; do
  json="$out/reports/$id-$n.json"
  read -r -a plist <<<"$params"
  note="${build_note[$id]:-${run_note["$id $n"]:-}}"
  if how="$(predict "$src" "$json" "$drv" "$n" "${plist[@]}")"; then
    note="${note:+$note${how:+; }}$how"
  else
    note="${note:+$note; }costline check failed (reports/$id-$n.stderr)"
  fi
  IFS=$'\t' read -r measured spread < <(mean_of "$id $n")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$suite" "$id" "$unit" "$src" "$tag" \
    "$level" "$n" "$ws" "$capped" "$params" "$measured" "$spread" "$json" "$(dirname "$drv")/vec.txt" "$note" >>"$rows"
done < <(tail -n +2 "$plan")

# ---- 5. the table ------------------------------------------------------------------------
elapsed=$(($(date +%s) - start_s))
header="$(binary_label); $("$FC" --version | head -1) $flags; $(date -u +%Y-%m-%dT%H:%MZ); $( [ "$quick" = 1 ] && echo quick || echo full ) run, seeds $seeds x $count, $rounds round(s), ${elapsed}s; load average at the end $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
python3 "$here/compare.py" "$rows" --out-dir "$out" --header "$header" --timings "$out/timings" "${gate_args[@]}"
