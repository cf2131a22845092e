#!/bin/sh
# signal-latency.sh -- how soon after SIGINT or SIGTERM is the plan in
# place?  (bench/README.md, "Signal latency")
#
#     bench/signal-latency.sh WASP_BIN OUTDIR [REPS] [CASES]
#
# Generates gpu instances (wasp gen --nodes N --gangs N/5 --max-gang 32;
# 512, 2,048 and 10,000 nodes; and lns-2048, where auto runs the
# neighbourhood search: bench/README.md, "At scale") into OUTDIR, then
# for every case runs
# `wasp plan ... -o OUTDIR/plan.json` REPS times (default 5), sends the
# signal after the case's delay, and measures with a small C helper
# (bench/sigwatch.c, built here with cc) the milliseconds from the signal
# to the plan renamed into place and to the exit.  Each written plan must
# pass `wasp check`, and the phase the signal met is read back from the
# plan's modeReason (the delays suit this machine; a row whose phase is
# not the intended one says so).  One line per run in OUTDIR/latency.tsv,
# then per case the median and the maximum; the load average first and
# last (timings on a loaded machine are worth little: say the load).
#
# CASES (default all): load greedy restarts rootlp bnb lns rebalance cbc
#                      sigterm
# DELAY_<case>=SECONDS in the environment overrides a case's delay (a
# quiet machine reaches each phase sooner: DELAY_greedy=1.3
# DELAY_rebalance=4 there).
set -eu
usage="usage: signal-latency.sh WASP_BIN OUTDIR [REPS] [CASES]"
bin=${1:?$usage}
out=${2:?$usage}
reps=${3:-5}
cases=${4:-"load greedy restarts rootlp bnb lns rebalance cbc sigterm"}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
cc -O2 -o "$out/sigwatch" "$here/sigwatch.c"
for n in 512 2048 10000; do
	[ -s "$out/gpu-$n.yaml" ] || "$bin" gen --nodes "$n" \
		--gangs $((n / 5)) --max-gang 32 -o "$out/gpu-$n.yaml"
done
[ -s "$out/lns-2048.yaml" ] || "$bin" gen --seed 7 --family gpu --levels 3 \
	--fanout 8 --nodes 2048 --gpus 8 --busy 0.5 --gangs 1024 \
	--max-gang 56 --priorities 4 -o "$out/lns-2048.yaml"
tsv=$out/latency.tsv
echo "# $(uptime)" | tee "$tsv"
printf 'case\tsignal\tdelay\tfile_ms\texit_ms\tstatus\tcheck\tphase\n' |
	tee -a "$tsv"

# case -> signal, delay (s), instance (gpu-N.yaml, or lns-2048.yaml
# for "lns"), plan options
spec() {
	case $1 in
	load) echo "INT 0.15 2048 --mode ilp -t 60" ;;
	greedy) echo "INT 2.8 10000 --mode greedy -t 0" ;;
	restarts) echo "INT 3.0 2048 --mode ilp -t 20" ;;
	rootlp) echo "INT 11.5 2048 --mode ilp -t 20" ;;
	bnb) echo "INT 13.0 512 --mode ilp -t 20" ;;
	lns) echo "INT 18.0 lns --mode auto -t 30" ;;
	rebalance) echo "INT 10.4 10000 --mode greedy --rebalance -t 0" ;;
	cbc) echo "INT 12.0 2048 --mode ilp --solver cbc -t 20" ;;
	sigterm) echo "TERM 11.5 2048 --mode ilp -t 20" ;;
	*) return 1 ;;
	esac
}

# The phase a plan says it was cancelled in.
phase_of() {
	if grep -q "rebalancing stopped early" "$1"; then
		echo rebalance
		return
	fi
	reason=$(sed -n 's/.*"modeReason": "\([^"]*\)".*/\1/p' "$1" | head -1)
	case $reason in
	*"cancelled during the neighbourhood"*) echo lns ;;
	*"cancelled during the ILP (cbc)"*) echo cbc ;;
	*"cancelled during the ILP"*) echo ilp ;;
	*"rebalancing post-pass did not run"*) echo "after-greedy/rebalance" ;;
	*"cancelled after greedy"*"seeded greedy passes"*) echo restarts ;;
	*"cancelled after greedy"*)
		# cut in the first pass, or (no pass better) in the seeded ones
		if grep -q "cancelled before this group was considered" "$1"
		then echo greedy; else echo restarts; fi ;;
	*"rebalancing"*"cancel"*) echo rebalance ;;
	*) echo "other: $(echo "$reason" | cut -c1-60)" ;;
	esac
}

for c in $cases; do
	set -- $(spec "$c")
	sig=$1 delay=$2 snap=$out/gpu-$3.yaml
	# the delays suit a loaded machine; DELAY_<case>=S overrides one
	eval "delay=\${DELAY_$c:-\$delay}"
	[ "$3" = lns ] && snap=$out/lns-2048.yaml
	shift 3
	for r in $(seq "$reps"); do
		line=$("$out/sigwatch" "$delay" "$sig" "$out/plan.json" \
			"$bin" plan -q "$@" -o "$out/plan.json" "$snap")
		ok=- ph=-
		if [ -s "$out/plan.json" ]; then
			if "$bin" check -q --plan "$out/plan.json" "$snap" \
				>/dev/null 2>&1
			then ok=valid; else ok=INVALID; fi
			ph=$(phase_of "$out/plan.json")
		elif grep -q "cancelled while reading" "$out/plan.json.err"
		then
			ph=load
		fi
		set -- $line
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "$sig" \
			"$delay" "$1" "$2" "$3" "$ok" "$ph" | tee -a "$tsv"
		set -- $(spec "$c")
		shift 3
	done
done
echo "# $(uptime)" | tee -a "$tsv"
# median and max per case (file: the runs that wrote a plan)
summary() {
	awk -F'\t' -v col="$1" -v k="$2" '$1 == k && $col ~ /^[0-9.]+$/ \
		{ print $col }' "$tsv" | sort -n | awk '
		{ v[++n] = $1 }
		END { if (!n) { printf "-\t-"; exit }
		      m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		      printf "%.1f\t%.1f", m, v[n] }'
}
printf 'case\tfile_median\tfile_max\texit_median\texit_max\n'
for c in $cases; do
	printf '%s\t%s\t%s\n' "$c" "$(summary 4 "$c")" "$(summary 5 "$c")"
done
