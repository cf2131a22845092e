#!/bin/sh
# crosscheck.sh -- solve one snapshot with wasp's ILP, with glpsol on
# models/wasp.mod and with cbc on the exported MPS and LP files, and print
# the four objectives (they must agree when the ILP proves optimality).
#
#   tests/ilp/crosscheck.sh [WASP_BIN] SNAPSHOT.yaml [extra wasp options]
#
# WASP_BIN defaults to $WASP_BIN or `wasp` on PATH.  Needs glpsol and cbc
# (Debian: glpk-utils, coinor-cbc); a missing tool is reported, not fatal.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${WASP_BIN:-wasp}
if [ $# -ge 2 ] && [ -x "$1" ]; then bin=$1; shift; fi
snap=$1; shift
tmp=$(mktemp -d /tmp/wasp-xcheck-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$bin" export --lp "$tmp/m.lp" "$@" "$snap"
"$bin" export --mps "$tmp/m.mps" "$@" "$snap"
"$bin" export --dat "$tmp/m.dat" "$@" "$snap"
head -3 "$tmp/m.dat" | sed 's/^# /dat: /'

"$bin" plan --mode ilp --format json "$@" "$snap" > "$tmp/plan.json"
printf 'wasp    %s\n' "$(sed -n 's/.*"objective": *\([-0-9.e+]*\).*/\1/p' \
	"$tmp/plan.json" | head -1)"

if command -v glpsol >/dev/null 2>&1; then
	glpsol -m "$here/models/wasp.mod" -d "$tmp/m.dat" -o "$tmp/g.out" \
		> "$tmp/g.log" 2>&1 || { cat "$tmp/g.log"; exit 1; }
	printf 'glpsol  %s\n' "$(sed -n 's/^Objective: *value = \([-0-9.e+]*\).*/\1/p' "$tmp/g.out")"
else
	echo "glpsol  (not installed: skipped)"
fi
if command -v cbc >/dev/null 2>&1; then
	printf 'cbc mps %s\n' "$(cbc "$tmp/m.mps" -max -solve 2>&1 |
		sed -n 's/^Objective value: *//p')"
	printf 'cbc lp  %s\n' "$(cbc "$tmp/m.lp" -solve 2>&1 |
		sed -n 's/^Objective value: *//p')"
else
	echo "cbc     (not installed: skipped)"
fi
