#!/usr/bin/env bash
# cbc-ratio.sh -- wasp (GLPK) against cbc: time to a proven optimum on the
# same node model (bench/README.md, "wasp against cbc").  For each
# instance it generates the snapshot with `wasp gen`, then
#
#   wasp plan -m ilp --node-model -t LIMIT -f json i.yaml          (GLPK)
#   wasp plan -m ilp --node-model --solver cbc -t LIMIT -f json i.yaml
#   wasp export --lp model.lp i.yaml; cbc model.lp sec LIMIT solve
#
# and prints one markdown row: the status and wall time of each (the two
# wasp runs: the whole command, loading and greedy included; cbc on the
# LP: the cbc process alone), wasp's time over each cbc time (only when
# both proved), and the objectives: one number when wasp's, cbc's on the
# LP ("Objective value") and --solver cbc's agree, else all three.  The times
# depend on the machine's load: print `uptime` with the table.
#
#   bench/cbc-ratio.sh WASP_BIN [LIMIT] [NAME...]
#   SEEDS="11 12 13 14" bench/cbc-ratio.sh WASP_BIN [LIMIT] [NAME...]
#
# LIMIT defaults to 60 s; NAMEs pick instances from the list below.
# SEEDS runs every picked instance once per seed (its --seed replaced;
# rows named NAME/sSEED): GLPK's and cbc's searches are chaotic, one
# instance says little.  After the rows, one line per solver: how many
# it proved, and the geometric mean of its times over all rows (an
# unproven row counts its time, at least LIMIT: a lower bound then).
set -u
bin=$1
limit=${2:-60}
shift $(($# > 1 ? 2 : 1))
tmp=$(mktemp -d /tmp/wasp-cbcr-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# name | wasp gen options: the family instances of bench/README.md and
# every instance of bench/suites/standard.yaml (its frag-64 is the same
# snapshot as gpu-64 here, byte for byte; the rest under their suite
# names; deep512 is the deep512-t* snapshot)
instances='
fragmented-64|--seed 11 --family fragmented --levels 2 --fanout 4 --nodes 64 --gangs 16 --max-gang 16 --priorities 3
mixed-64|--seed 11 --family mixed --levels 2 --fanout 4 --nodes 64 --gangs 16 --max-gang 16 --priorities 3
gpu-64|--seed 11 --family gpu --levels 2 --fanout 4 --nodes 64 --gangs 16 --max-gang 16 --priorities 3
nvlink-72|--seed 11 --family nvlink --levels 2 --fanout 4 --nodes 72 --gangs 18 --max-gang 16 --priorities 3
frag-128|--seed 12 --levels 2 --fanout 4 --nodes 128 --gpus 8 --busy 0.5 --gangs 32 --max-gang 16 --priorities 3
fragmented-128|--seed 11 --family fragmented --levels 2 --fanout 4 --nodes 128 --gangs 32 --max-gang 16 --priorities 3
gpu-128|--seed 11 --family gpu --levels 2 --fanout 4 --nodes 128 --gangs 32 --max-gang 16 --priorities 3
frag-256|--seed 13 --levels 2 --fanout 4 --nodes 256 --gpus 8 --busy 0.5 --gangs 64 --max-gang 16 --priorities 3
frag-512|--seed 14 --levels 2 --fanout 8 --nodes 512 --gpus 8 --busy 0.5 --gangs 128 --max-gang 16 --priorities 3
busy-256|--seed 21 --levels 2 --fanout 4 --nodes 256 --gpus 8 --busy 0.8 --gangs 64 --max-gang 16 --priorities 3
big-256|--seed 22 --levels 2 --fanout 4 --nodes 256 --gpus 8 --busy 0.2 --gangs 24 --max-gang 64 --priorities 2
deep512|--seed 31 --levels 3 --fanout 4 --nodes 512 --gpus 8 --busy 0.5 --gangs 100 --max-gang 16 --priorities 3
nvlink-576|--seed 51 --family nvlink --levels 2 --fanout 4 --nodes 576 --busy 0.5 --gangs 64 --max-gang 18 --priorities 3
fragmented-256|--seed 52 --family fragmented --levels 2 --fanout 4 --nodes 256 --gpus 8 --busy 0.5 --gangs 64 --max-gang 16 --priorities 3
mixed-256|--seed 53 --family mixed --levels 2 --fanout 4 --nodes 256 --gpus 8 --busy 0.5 --gangs 48 --max-gang 16 --priorities 3 --cpu-nodes 0.25 --services 32 --lone-pods 64
trees-256|--seed 54 --levels 3 --fanout 4 --nodes 256 --gpus 8 --busy 0.5 --gangs 16 --max-gang 16 --priorities 3 --trees 24
'

# status and objective of a plan in JSON
summary() {
	python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))["summary"]
print(s["status"], s.get("objective"))' "$1" 2>/dev/null || echo "error -"
}

now() { date +%s.%N; }

echo "| instance | wasp (GLPK) | cbc on the LP | --solver cbc | wasp / cbc LP | wasp / --solver cbc | optima |"
echo "|---|---|---|---|---|---|---|"
echo "$instances" | while IFS='|' read -r name0 opts0; do
	[ -n "$name0" ] || continue
	if [ $# -gt 0 ]; then
		want=0
		for n in "$@"; do [ "$n" = "$name0" ] && want=1; done
		[ $want = 1 ] || continue
	fi
	for seed in ${SEEDS:--}; do
	name=$name0
	opts=$opts0
	if [ "$seed" != - ]; then
		name="$name0/s$seed"
		opts=$(echo "$opts0" | sed "s/--seed [0-9]*/--seed $seed/")
	fi
	# shellcheck disable=SC2086
	"$bin" gen $opts > "$tmp/i.yaml" || continue
	t0=$(now)
	"$bin" plan -m ilp --node-model -t "$limit" -f json "$tmp/i.yaml" \
		> "$tmp/w.json" 2> /dev/null
	tw=$(echo "$(now) - $t0" | bc)
	read -r sw ow <<< "$(summary "$tmp/w.json")"
	t0=$(now)
	"$bin" plan -m ilp --node-model --solver cbc -t "$limit" -f json \
		"$tmp/i.yaml" > "$tmp/c.json" 2> /dev/null
	tc=$(echo "$(now) - $t0" | bc)
	read -r sc oc <<< "$(summary "$tmp/c.json")"
	"$bin" export --lp "$tmp/m.lp" "$tmp/i.yaml"
	t0=$(now)
	(cd "$tmp" && timeout $((limit + 30)) cbc m.lp sec "$limit" solve \
		> "$tmp/cbc.log" 2>&1)
	tl=$(echo "$(now) - $t0" | bc)
	ol=$(sed -n 's/^Objective value: *//p' "$tmp/cbc.log" | head -1)
	[ -n "$ol" ] && ol=$(printf '%.0f' "$ol")
	if grep -q '^Result - Optimal solution found' "$tmp/cbc.log"; then
		sl=optimal
	else
		sl=stopped
	fi
	ratio=-
	if [ "$sw" = optimal ] && [ "$sl" = optimal ]; then
		ratio=$(printf '%.2f' "$(echo "$tw / $tl" | bc -l)")
	fi
	ratio2=-
	if [ "$sw" = optimal ] && [ "$sc" = optimal ]; then
		ratio2=$(printf '%.2f' "$(echo "$tw / $tc" | bc -l)")
	fi
	# objectives: one number when all three agree, else each
	# (wasp / cbc on the LP / --solver cbc; "-" where cbc had none)
	if [ "$ow" = "$ol" ] && [ "$ow" = "$oc" ]; then
		same="equal, $ow"
	else
		same="$ow / ${ol:--} / $oc"
	fi
	printf '| %s | %s, %.1f s | %s, %.1f s | %s, %.1f s | %s | %s | %s |\n' \
		"$name" "$sw" "$tw" "$sl" "$tl" "$sc" "$tc" "$ratio" "$ratio2" \
		"$same"
	echo "$sw $tw $sl $tl $sc $tc" >> "$tmp/times"
	done
done
# proven and geometric mean of the times, per solver
[ -s "$tmp/times" ] && awk '
{ for (k = 0; k < 3; k++) {
	n[k]++; if ($(2 * k + 1) == "optimal") p[k]++
	l[k] += log($(2 * k + 2) > 0.01 ? $(2 * k + 2) : 0.01) } }
END { split("wasp (GLPK)|cbc on the LP|--solver cbc", nm, "|")
	printf "\n"
	for (k = 0; k < 3; k++)
		printf "%s: %d of %d proven, geomean %.2f s\n", nm[k + 1],
		    p[k], n[k], exp(l[k] / n[k]) }' "$tmp/times"
