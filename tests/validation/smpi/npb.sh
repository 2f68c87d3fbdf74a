#!/usr/bin/env bash
# The NPB3.4-MPI rows of the SMPI harness (sourced by run.sh once per network, which
# sets root, here, out, runs, quick, costline, machine and simulate). Class S of CG, MG, FT, LU, SP and BT (CG alone with
# --quick) is built with the suite's own Makefiles — smpif77 compiles the fixed-form
# sources so that SMPI can run their main programs — and run under smpirun like the
# programs of run.sh; costline reads the same sources, with the npbparams.h the build
# wrote, and P bound as `p`. The build is kept in $out/npb between runs.
npb_src="${COSTLINE_NPB:-$root/../shared/corpus/npb}/NPB3.4-MPI"
if [ ! -d "$npb_src" ]; then
  echo "run.sh: no NPB3.4-MPI at $npb_src (set COSTLINE_NPB): NPB rows left out" >&2
  return 0
fi
npb="$out/npb"
if [ "$quick" = 1 ]; then benches="cg"; npb_ranks="4"; else benches="cg mg ft lu sp bt"; npb_ranks="4 16"; fi
if [ ! -d "$npb/config" ]; then
  cp -r "$npb_src" "$npb"
  chmod -R u+w "$npb"
  mkdir -p "$npb/bin"
  {
    echo "MPIFC = $here/smpif77"
    echo "FLINK = smpif90"
    echo "FFLAGS = -O1 -w -fallow-argument-mismatch"
    echo "FLINKFLAGS = \$(FFLAGS)"
    echo "MPICC = smpicc"
    echo "CLINK = \$(MPICC)"
    echo "CFLAGS = -O1"
    echo "CLINKFLAGS = \$(CFLAGS)"
    echo "CC = gcc"
    echo "BINDIR = ../bin"
    echo "CONVERTFLAG = -DFORTRAN_REC_SIZE=1"
    echo "RAND = randdp"
  } > "$npb/config/make.def"
fi
for b in $benches; do
  [ -x "$npb/bin/$b.S.x" ] && continue
  (cd "$npb" && make "$b" CLASS=S >"$npb/build-$b.log" 2>&1) || {
    echo "run.sh: NPB $b does not build:" >&2; tail -20 "$npb/build-$b.log" >&2; exit 1; }
done
for b in $benches; do
  B=$(echo "$b" | tr 'a-z' 'A-Z')
  for p in $npb_ranks; do
    name="npb-$b-S-p$p"
    dir="$runs/$name"
    mkdir -p "$dir"
    (cd "$dir" && LD_PRELOAD="$out/libpmpi_count.so" simulate -np "$p" "$npb/bin/$b.S.x" >run.log 2>&1) || {
      echo "run.sh: $name fails under smpirun:" >&2; tail -20 "$dir/run.log" >&2; exit 1; }
    grep '^pmpi ' "$dir/run.log" > "$dir/simulated.txt"
    (cd "$npb/$B" && "$costline" check ./*.f ../common/print_results.f ../common/randdp.f \
        ../common/timers.f --machine "$machine" --param "p=$p" --format json) > "$dir/predicted.json"
    printf '%s\t%s\t%s\t%s\n' "$name" "npb-$b" "$p" "class S" >> "$runs/index.tsv"
  done
done
