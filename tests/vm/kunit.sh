#!/bin/bash
# Load the KUnit module in the guest and turn its KTAP results into TAP
# lines: one per test case, failing on any "not ok".
. "$REPO/tools/vm/guest-lib.sh"

setup_modules
dmesg_clear
if ! modprobe metaroce_kunit; then
	fail "metaroce_kunit loads"
	tap_summary
	exit 1
fi
ok "metaroce_kunit loads"
dmesg >"$OUT/kunit-dmesg.txt"

# Each suite's results, as KTAP, are in debugfs.
suites=0
for r in /sys/kernel/debug/kunit/*/results; do
	[ -f "$r" ] || continue
	suite=$(basename "$(dirname "$r")")
	case $suite in mroce*|metaroce*) ;; *) continue ;; esac
	suites=$((suites + 1))
	cp "$r" "$OUT/kunit-$suite.ktap"
	# Indented "ok N name" lines are the cases; the last unindented one is
	# the suite verdict, which we check separately.
	while read -r line; do
		case $line in
		"ok "*) ok "kunit $suite: ${line#ok }" ;;
		"not ok "*) fail "kunit $suite: ${line#not ok }" ;;
		esac
	done < <(grep -E '^    (not )?ok ' "$r" | sed 's/^    //')
	grep -qE '^(    )?not ok ' "$r" && fail "kunit suite $suite has failures"
done
check "found KUnit suites ($suites)" [ "$suites" -gt 0 ]
check "kernel log has no warnings" dmesg_clean
tap_summary
