#!/bin/bash
# make bench: build what the VMs load, run the benchmark suite in the VM
# harness and write Documentation/benchmarks.md, Documentation/bench/*.csv
# and *.png from it.
#
#   1. two VMs (tools/vm/run-pair.sh, tests/vm/bench-pair.sh): rdma_rxe
#      and MetaRoCE on one wire: bandwidth over sizes, latency, loss,
#      many QPs;
#   2. one VM (tools/vm/run-vm.sh, tests/vm/bench-fabric.sh): MetaRoCE on
#      the fabric testbed: plane scaling, plane failure, incast;
#   3. one VM (tools/bench/guest-profile.sh): where MetaRoCE's CPU goes
#      in ib_write_bw (perf, cpu-clock);
#   4. tools/bench/report.py: tables, CSV and gnuplot figures.
#
# Raw output stays in build/bench (BENCH_OUT). Every BENCH_* variable in
# the environment reaches the guests (see the two guest scripts for what
# each tunes; lists are comma-separated). BENCH_ONLY=pair|fabric|profile|report
# runs one step (report reuses the raw output of an earlier run).
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
		cc -O2 -Wall -o build/bench/tsc-mhz tools/bench/tsc-mhz.c ||
		{ echo "bench: build failed" >&2; exit 1; }
	# run-vm.sh boots the guests with the host's TSC rate (tsc_early_khz).
	envs=(-e REPO="$repo" -e KDIR="$kdir")
	while IFS='=' read -r k v; do
		case $k in BENCH_OUT | BENCH_ONLY | BENCH_*_TIMEOUT) continue ;; esac
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
		-t "${BENCH_PAIR_TIMEOUT:-3000}" "${envs[@]}" || fail=1
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
# Two builds in turns (BENCH_ALT_KO): their ib_write_bw runs side by
# side, and no report: report.py knows rxe and MetaRoCE only.
if [ -n "${BENCH_ALT_KO:-}" ]; then
	awk -F, '$1 ~ /^ib_write_bw/ && $4 == "data_mbps" && $5 != "" {
		v[$2] = v[$2] " " $5; n[$2]++; a[$2, n[$2]] = $5
	}
	END {
		for (s in v) {
			m = n[s]
			for (i = 1; i <= m; i++)
				for (j = i + 1; j <= m; j++)
					if (a[s, j] < a[s, i]) { t = a[s, i]; a[s, i] = a[s, j]; a[s, j] = t }
			med = m % 2 ? a[s, (m + 1) / 2] : (a[s, m / 2] + a[s, m / 2 + 1]) / 2
			printf "bench: %s ib_write_bw data phase Mbit/s:%s; median %.1f\n", s, v[s], med
		}
	}' "$pdir/b/bench.csv"
	# The turns' loss points, each over the same round's lossless run.
	awk -F, '$1 ~ /^turnloss-r/ && $4 == "data_mbps" && $5 != "" { v[$1, $2, $3] = $5; x[$3]; st[$2]; r[$1] }
	END {
		for (s in st) for (p in x) {
			if (p == 0) continue
			out = ""
			for (k in r) if (v[k, s, 0] > 0 && v[k, s, p] != "")
				out = out sprintf(" %.2f", v[k, s, p] / v[k, s, 0])
			if (out != "") printf "bench: %s at %s%% over lossless, by round:%s\n", s, p, out
		}
	}' "$pdir/b/bench.csv"
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
