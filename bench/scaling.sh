#!/usr/bin/env bash
# scaling.sh -- the greedy core's scaling curve (bench/README.md, "Greedy
# scaling"): for each size, the instance
#
#   wasp gen --levels 3 --fanout 8 --gpus 8 --busy 0.5 --gangs N/2 \
#            --max-gang 56 --priorities 4 [--dra] --nodes N
#
# planned with `wasp plan --mode greedy -t 0 -j THREADS`, REPEAT times;
# prints one markdown row per (size, DRA): the median greedy time (the
# plan's times.greedy, wall clock: the greedy pass and the BestFit-order
# pass), the CPU seconds (user + system) of the whole command (loading
# included: on a loaded machine the wall clock says little), the largest
# peak RSS of the whole command, pending pods decided per second of
# greedy time, then the growth exponents of both times fitted by least
# squares on log-log.
#
#   bench/scaling.sh WASP_BIN [SIZES] [DRA_SIZES]
#
# SIZES default "1000 2000 5000 10000 20000 50000"; DRA_SIZES ("": none) default
# "1000 2000 5000 10000 20000" (50k nodes with claims needs about 5 GB,
# most of it the loaded snapshot).  Environment: REPEAT (default 3),
# THREADS (default 2), MEM_KB (address-space limit per run, default
# 6000000; a run over it fails and shows as "-"), RACK (unset: the
# instance above, whose 512 racks grow with the cluster; RACK=10: racks
# of 10 nodes that grow in number instead, --levels 2 --fanout F with F
# the nearest to sqrt(N / 10), N rounded to F * F * 10).  Instances are
# generated into a temporary directory and removed at the end.
set -u
bin=${1:?usage: bench/scaling.sh WASP_BIN [SIZES] [DRA_SIZES]}
sizes=${2:-1000 2000 5000 10000 20000 50000}
dsizes=${3-1000 2000 5000 10000 20000}
repeat=${REPEAT:-3}
threads=${THREADS:-2}
mem=${MEM_KB:-6000000}
rack=${RACK:-}
tmp=$(mktemp -d /tmp/wasp-scaling-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| nodes | DRA | pending pods | greedy s (median of $repeat) | command CPU s | peak RSS MB | pods/s | admitted pods | evictions |"
echo "|---|---|---|---|---|---|---|---|---|"
# slope N:T ...: the least-squares slope of log T on log N
slope() {
	printf '%s\n' "$@" | awk -F: '
	$2 > 0 { x = log($1); y = log($2); n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
	END { if (n > 1) printf "%.2f", (n * sxy - sx * sy) / (n * sxx - sx * sx); else printf "-" }'
}
fit=""
for dra in "" --dra; do
	list=$sizes
	[ -n "$dra" ] && list=$dsizes
	pts="" cpts=""
	for n in $list; do
		f=$tmp/i.yaml
		topo="--levels 3 --fanout 8"
		if [ -n "$rack" ]; then
			fo=$(awk -v n="$n" -v r="$rack" 'BEGIN { f = int(sqrt(n / r) + 0.5); print f < 1 ? 1 : f }')
			n=$((fo * fo * rack))
			topo="--levels 2 --fanout $fo"
		fi
		# shellcheck disable=SC2086
		"$bin" gen $topo --gpus 8 --busy 0.5 \
			--gangs $((n / 2)) --max-gang 56 --priorities 4 $dra \
			--nodes "$n" -o "$f" || exit 3
		pods=$(grep -c '^kind: Pod$' "$f")
		bound=$(grep -c '^  nodeName:' "$f")
		pending=$((pods - bound))
		ts="" cs="" rss=0 ok=1
		for _ in $(seq "$repeat"); do
			if ! (ulimit -v "$mem"; /usr/bin/time -f '%M %U %S' -o "$tmp/rss" \
			      "$bin" plan --mode greedy -q -t 0 -j "$threads" "$f" \
			      > "$tmp/p.json" 2> "$tmp/err"); then
				ok=0
				break
			fi
			t=$(sed -n 's/^ *"greedy": \([0-9.e+-]*\),\{0,1\}$/\1/p' \
			    "$tmp/p.json" | head -1)
			ts="$ts $t"
			read -r r u sy < <(tail -1 "$tmp/rss")
			[ "$r" -gt "$rss" ] && rss=$r
			cs="$cs $(echo "$u + $sy" | bc -l)"
		done
		if [ $ok = 0 ]; then
			echo "| $n | ${dra:+yes} | $pending | - | - | - | - | failed: $(head -c 80 "$tmp/err") | |"
			continue
		fi
		med=$(printf '%s\n' $ts | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		cmed=$(printf '%s\n' $cs | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		adm=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["summary"]; print(sum(w["admitted"] for w in d["tiers"]["work"]), d["counts"]["evictedPods"])' "$tmp/p.json")
		printf '| %s | %s | %s | %.2f | %.2f | %d | %.0f | %s | %s |\n' "$n" \
			"${dra:+yes}" "$pending" "$med" "$cmed" $((rss / 1024)) \
			"$(echo "$pending / $med" | bc -l)" ${adm% *} ${adm#* }
		pts="$pts $n:$med"
		cpts="$cpts $n:$cmed"
	done
	label=plain
	[ -n "$dra" ] && label=DRA
	fit="$fit $label greedy $(slope $pts), command CPU $(slope $cpts);"
done
echo
echo "growth exponents (least squares, log-log):$fit"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
