#!/bin/sh
# time-limit-grid.sh -- does a run keep --time-limit?  (bench/README.md,
# "Keeping the time limit")
#
#     bench/time-limit-grid.sh WASP_BIN OUTDIR [LIMITS] [NODES]
#
# For every size in NODES (default "512 2048 10000") it generates one gpu
# instance (wasp gen --nodes N --gangs N/5 --max-gang 32, seed 1), then
# plans it in every mode (greedy, auto, ilp, ilp --rebalance) under every
# limit in LIMITS (default "0.5 1 2 5 10") and records the wall time of
# the whole command.  The target is wall <= limit + max(0.2 s, 5 %).
# One line per run on standard output and in OUTDIR/grid.tsv:
#     nodes mode limit wall target ok exit
# then "N passed, M failed"; the machine's load average goes first
# (timings on a loaded machine are worth little: say the load).
set -eu
bin=${1:?usage: time-limit-grid.sh WASP_BIN OUTDIR [LIMITS] [NODES]}
out=${2:?usage: time-limit-grid.sh WASP_BIN OUTDIR [LIMITS] [NODES]}
limits=${3:-"0.5 1 2 5 10"}
sizes=${4:-"512 2048 10000"}
mkdir -p "$out"
tsv=$out/grid.tsv
echo "# $(uptime)" | tee "$tsv"
printf 'nodes\tmode\tlimit\twall\ttarget\tok\texit\n' | tee -a "$tsv"
pass=0 fail=0
for n in $sizes; do
	snap=$out/gpu-$n.yaml
	[ -s "$snap" ] || "$bin" gen --nodes "$n" --gangs $((n / 5)) \
		--max-gang 32 -o "$snap"
	for mode in greedy auto ilp ilp-rebalance; do
		case $mode in
		ilp-rebalance) args="--mode ilp --rebalance" ;;
		*) args="--mode $mode" ;;
		esac
		for t in $limits; do
			t0=$(date +%s.%N)
			rc=0
			# shellcheck disable=SC2086
			"$bin" plan -q $args --time-limit "$t" \
				-o "$out/plan.json" "$snap" 2>/dev/null || rc=$?
			t1=$(date +%s.%N)
			line=$(awk -v a="$t0" -v b="$t1" -v t="$t" 'BEGIN {
				w = b - a; m = t * 0.05; if (m < 0.2) m = 0.2
				printf "%.3f\t%.3f\t%s", w, t + m,
				       (w <= t + m) ? "yes" : "NO" }')
			case $line in *yes) pass=$((pass + 1)) ;;
			*) fail=$((fail + 1)) ;; esac
			printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$mode" "$t" \
				"$line" "$rc" | tee -a "$tsv"
		done
	done
done
echo "# $(uptime)" | tee -a "$tsv"
echo "$pass passed, $fail failed"
