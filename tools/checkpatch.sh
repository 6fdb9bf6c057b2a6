#!/bin/sh
# checkpatch.pl --strict over the kernel-side sources.
set -e
cd "$(dirname "$0")/.."
cp=$(ls -d "${METAROCE_CACHE:-/var/cache/metaroce}"/src-*/scripts/checkpatch.pl | head -1)
[ -n "$cp" ] || { echo "checkpatch.pl not found (build the kernel first)" >&2; exit 1; }
# Tracepoint headers follow the TRACE_EVENT macro layout, which checkpatch
# reads as open-ended lines; the kernel does not hold them to it either.
files=$(git ls-files -co --exclude-standard 'drivers/*.[ch]' 'include/*.h' 'kunit/*.[ch]' |
	grep -v '/trace\.h$')
out=$(perl "$cp" --no-tree --strict --terse --show-types -f $files 2>&1 |
	grep -E "ERROR|WARNING|CHECK" || true)
[ -z "$out" ] && exit 0
echo "$out"
exit 1
