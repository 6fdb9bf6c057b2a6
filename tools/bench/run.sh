#!/bin/bash
# make bench: build what the VMs load, run the benchmark suite in the VM
# harness and write Documentation/benchmarks.md, Documentation/bench/*.csv
# and *.png from it.
#
#   1. two VMs (tools/vm/run-pair.sh, tests/vm/bench-pair.sh): rdma_rxe
#      and MetaRoCE on one wire: bandwidth over sizes, latency, loss,
#      many QPs;
#   2. one VM (tools/vm/run-vm.sh, tests/vm/bench-fabric.sh): MetaRoCE on
#      the fabric testbed: plane scaling, plane failure, incast, planes
#      of unequal delay;
#   3. one VM (tools/bench/guest-profile.sh): where MetaRoCE's CPU goes
#      in ib_write_bw (perf, cpu-clock);
#   4. tools/bench/report.py: tables, CSV and gnuplot figures.
#
# Raw output stays in build/bench (BENCH_OUT). Every BENCH_* variable in
# the environment reaches the guests (see the two guest scripts for what
# each tunes; lists are comma-separated). BENCH_ONLY=pair|fabric|profile|report
# runs one step (report reuses the raw output of an earlier run).
# BENCH_WIRE=unix|tcp picks the wire between the two VMs (run-pair.sh -w,
# which records it for the report).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
run=${BENCH_OUT:-$repo/build/bench}
only=${BENCH_ONLY:-}
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

fail=0
if want pair || want fabric || want profile; then
	kdir=$(tools/kernel/build-kernel.sh normal) || exit 1
	bz=$kdir/arch/x86/boot/bzImage
	echo "bench: building modules and provider for $kdir"
	mkdir -p build/bench
	make -s KDIR="$kdir" modules >/dev/null && make -s provider >/dev/null &&
		cc -O2 -Wall -o build/bench/tsc-mhz tools/bench/tsc-mhz.c &&
		cc -O2 -Wall -o build/bench/stallmon tools/bench/stallmon.c &&
		cc -O2 -Wall -o build/bench/udpflood tools/bench/udpflood.c ||
		{ echo "bench: build failed" >&2; exit 1; }
	# run-vm.sh boots the guests with the host's TSC rate (tsc_early_khz).
	envs=(-e REPO="$repo" -e KDIR="$kdir")
	while IFS='=' read -r k v; do
		case $k in BENCH_OUT | BENCH_ONLY | BENCH_WIRE | BENCH_*_TIMEOUT) continue ;; esac
		[[ "$v" == *[[:space:]]* ]] && { echo "bench: $k: no spaces (use commas)" >&2; exit 2; }
		envs+=(-e "$k=$v")
	done < <(env | grep '^BENCH_')
fi

# A run of some parts only (BENCH_PARTS) goes to its own directory;
# report.py lays it over the full run's figures.
pdir=$run/pair${BENCH_PARTS:+-${BENCH_PARTS//,/-}}
if want pair; then
	rm -rf "$pdir"
	t0=$SECONDS
	echo "bench: two VMs, rxe and MetaRoCE (raw output: $pdir)"
	tools/vm/run-pair.sh -k "$bz" -s tests/vm/bench-pair.sh -o "$pdir" \
		${BENCH_WIRE:+-w "$BENCH_WIRE"} -t "${BENCH_PAIR_TIMEOUT:-3000}" "${envs[@]}" || fail=1
	echo "bench: pair done in $((SECONDS - t0))s; $(grep -c '^not ok' "$pdir/b/results.tap" 2>/dev/null) failed steps"
fi
if want fabric && [ -z "${BENCH_PARTS:-}" ]; then
	rm -rf "$run/fabric"
	t0=$SECONDS
	echo "bench: fabric testbed, MetaRoCE (raw output: $run/fabric)"
	tools/vm/run-vm.sh -k "$bz" -s tests/vm/bench-fabric.sh -o "$run/fabric" \
		-t "${BENCH_FABRIC_TIMEOUT:-1800}" -m 1024 "${envs[@]}" || fail=1
	echo "bench: fabric done in $((SECONDS - t0))s; $(grep -c '^not ok' "$run/fabric/results.tap" 2>/dev/null) failed steps"
fi
if want profile && [ -z "${BENCH_PARTS:-}" ]; then
	rm -rf "$run/profile"
	echo "bench: perf profile of MetaRoCE ib_write_bw (raw output: $run/profile)"
	tools/vm/run-vm.sh -k "$bz" -s tools/bench/guest-profile.sh -o "$run/profile" \
		-t 600 -m 1024 "${envs[@]}" || fail=1
fi
# Two builds in turns (BENCH_ALT_KO): their 64 KiB runs side by
# side, and no report: report.py knows rxe and MetaRoCE only.
if [ -n "${BENCH_ALT_KO:-}" ]; then
	python3 - "$pdir/b/bench.csv" <<'EOF'
import csv, re, statistics, sys
rate = {}
for row in csv.reader(open(sys.argv[1])):
    if len(row) == 5 and row[3] == "data_mbps" and row[4]:
        rate[row[0], row[1], row[2]] = float(row[4])
def rnd(b):
    m = re.search(r"-r(\d+)$", b)
    return int(m.group(1)) if m else 1
turns = sorted({k[0] for k in rate if k[0].startswith("turnloss-")}, key=rnd)
points = sorted({k[2] for k in rate if k[0] in turns and k[2] != "0"}, key=float)
for s, tool in sorted({(k[1], k[0].split("-")[0]) for k in rate
                       if k[0].startswith("ib_") and k[2] == "65536"}):
    w = [rate[k] for k in sorted(rate, key=lambda k: rnd(k[0]))
         if k[1] == s and k[2] == "65536" and re.fullmatch(tool + r"(-r\d+)?", k[0])]
    print(f"bench: {s} {tool} 64 KiB data phase Mbit/s: "
          f"{' '.join(f'{v:.1f}' for v in w)}; median {statistics.median(w):.1f}")
    # The turns' loss points (ib_write_bw), each over the same round's
    # lossless run.
    for p in points if tool == "ib_write_bw" else []:
        r = [rate[t, s, p] / rate[t, s, "0"] for t in turns
             if (t, s, p) in rate and rate.get((t, s, "0"))]
        if r:
            print(f"bench: {s} at {p}% over lossless, by round: "
                  f"{' '.join(f'{v:.2f}' for v in r)}; median {statistics.median(r):.2f}")
EOF
	exit $fail
fi
# Only a run with the full pair part replaces the published page; a
# partial one into a fresh BENCH_OUT gets its report beside its output.
doc=Documentation
[ -s "$run/pair/b/bench.csv" ] || doc=$run/doc
python3 tools/bench/report.py "$run" "$doc" || exit 1
echo "bench: wrote $doc/benchmarks.md and $doc/bench/"
# A failed step inside a guest is a measurement (rxe not finishing at 10%
# loss, a stalled incast sender); the report shows it. Fail only when a
# guest left no results at all.
[ $fail = 0 ] || echo "bench: some steps failed (see $run/*/results.tap); the report marks them"
for d in "$run"/pair*/b "$run"/fabric; do
	[ -d "$d" ] || continue
	[ -s "$d/bench.csv" ] || { echo "bench: no results in $d" >&2; exit 1; }
done
exit 0
