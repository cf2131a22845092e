#!/usr/bin/env bash
# same-plans.sh -- print a digest of everything a wasp binary answers on a
# fixed set of inputs, so that a refactoring can be proved not to change
# behaviour: run it with the old and the new binary and diff the outputs.
#
#   bench/same-plans.sh WASP_BIN OUTDIR
#
# For each input it records the plan (JSON, YAML and text) in greedy, ilp
# and auto mode, greedy with --rebalance, the exported models (LP,
# MPS, GMPL data), `wasp check` on the plan, and every exit status and
# stderr line.  Times are removed (they differ run to run); nothing else
# is.  Only runs the ILP proves (or greedy mode) are deterministic: the
# inputs are small enough that every ILP run here is proven, and a run
# that is cut by its deadline shows up as a difference between two runs
# of the same binary (run it twice to see).  The limits are generous
# because a loaded machine can take ten times as long: a proven run ends
# when it is proven, whatever its limit.
set -u
bin=$1
out=$2
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
tmp=$(mktemp -d /tmp/wasp-same-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Drop timing fields: JSON "times" members, YAML times lines, text report
# lines that print seconds.
strip_times() {
	sed -E -e '/"(load|reduce|greedy|ilp|total|lns|rebalance|restarts|solve)": [0-9.e+-]+,?$/d' \
	       -e '/^ +(load|reduce|greedy|ilp|total|lns|rebalance|restarts|solve): [0-9.e+-]+$/d' \
	       -e 's/[0-9]+\.[0-9]+ ?s\b/T s/g' -e 's/[0-9]+ ms\b/T ms/g'
}

run() { # name, args...
	local name=$1; shift
	"$bin" "$@" > "$tmp/o" 2> "$tmp/e"
	local rc=$?
	{ echo "## $name: exit $rc"; strip_times < "$tmp/o"; echo "## stderr"; cat "$tmp/e"; } > "$out/$name.txt"
}

inputs=()
for f in "$here"/models/examples/*.yaml; do inputs+=("$f"); done
# generated instances: every family, small enough for the ILP to prove
gen() { local n=$1; shift; "$bin" gen "$@" > "$tmp/$n.yaml"; cp "$tmp/$n.yaml" "$out/input-$n.yaml"; inputs+=("$out/input-$n.yaml"); }
gen g1 --seed 1 --nodes 16 --gangs 6 --max-gang 8
gen g2 --seed 2 --nodes 32 --gangs 8 --max-gang 8 --priorities 3
gen g3 --seed 3 --levels 1 --nodes 16 --busy 0.7 --gangs 8 --max-gang 6
gen nv --seed 4 --family nvlink --nodes 36 --gangs 6
gen fr --seed 5 --family fragmented --nodes 32 --gangs 6 --max-gang 8
gen mx --seed 6 --family mixed --nodes 32 --gangs 5 --max-gang 8
gen tr --seed 7 --nodes 32 --gangs 3 --trees 2 --max-gang 6
gen dra --seed 8 --nodes 16 --gangs 4 --max-gang 4 --dra
gen pre --seed 9 --nodes 16 --gangs 6 --max-gang 8 --preemptible 2>/dev/null || true

for f in "${inputs[@]}"; do
	b=$(basename "$f" .yaml)
	for m in greedy ilp auto; do
		run "$b.$m.json" plan -j 1 -t 300 --mode $m "$f"
	done
	# the rebalancing ILP is rarely proven in seconds: greedy only
	run "$b.greedy.rebalance.json" plan -j 1 --mode greedy --rebalance "$f"
	run "$b.auto.yaml" plan -j 2 -t 300 -f yaml "$f"
	run "$b.auto.text" plan -j 2 -t 300 -f text "$f"
	run "$b.node.json" plan -j 1 -t 300 --mode ilp --node-model "$f"
	"$bin" plan -q -j 1 --mode greedy "$f" > "$tmp/p.json" 2>/dev/null
	run "$b.check" check --plan "$tmp/p.json" "$f"
	for x in lp mps dat; do
		"$bin" export --$x "$tmp/m.$x" "$f" > "$tmp/eo" 2>&1
		{ echo "exit $?"; cat "$tmp/eo" "$tmp/m.$x" 2>/dev/null; } > "$out/$b.export.$x"
		rm -f "$tmp/m.$x"
	done
done
# every fixture: plan it (most are bad inputs: the message must not change)
find "$here/tests/fixtures" -type f \( -name '*.yaml' -o -name '*.json' \) | sort |
while read -r f; do
	n=$(echo "${f#$here/tests/fixtures/}" | tr / _)
	run "fx.$n" plan -j 1 -t 10 "$f"
done
