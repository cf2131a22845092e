#!/usr/bin/env bash
# top-tier.sh -- the top tier's true optimum against wasp's bound and plan
# (bench/README.md, "The top tier's true optimum").  For each snapshot:
#
#   wasp export --top-tier --lp m.lp i.json; cbc m.lp sec LIMIT solve
#   wasp plan -m auto -t PLAN_S -j 2 -f json i.json
#
# and one markdown row: cbc's optimum of the top tier's work alone (or
# "not proven" and its best bound), its time, the bound the plan reports
# (its modeReason's "work per priority at most"; "-" where the run gives
# none, e.g. a small instance the ILP takes), the plan's top tier, and how
# far the plan and the bound are from the optimum.
#
#   bench/top-tier.sh WASP_BIN LIMIT PLAN_S SNAPSHOT...
#
# Snapshots as `wasp gen --json` writes them; cbc from coinor-cbc.
set -u
bin=$1 limit=$2 plan_s=$3
shift 3
tmp=$(mktemp -d /tmp/wasp-top-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
command -v cbc >/dev/null || { echo "top-tier.sh: no cbc on PATH" >&2; exit 2; }

echo "| instance | optimum (cbc) | cbc time | wasp's bound | wasp's plan | plan below optimum | bound above optimum |"
echo "|---|---|---|---|---|---|---|"
for f in "$@"; do
	name=$(basename "$f" .json)
	"$bin" export -q --top-tier --lp "$tmp/m.lp" "$f" || exit 2
	start=$(date +%s.%N)
	cbc "$tmp/m.lp" sec "$limit" solve > "$tmp/cbc.log" 2>&1
	end=$(date +%s.%N)
	"$bin" plan -q -m auto -t "$plan_s" -j 2 -f json "$f" > "$tmp/p.json" ||
		exit 2
	python3 - "$tmp/cbc.log" "$tmp/p.json" "$name" "$start" "$end" <<'PY'
import json, re, sys
log = open(sys.argv[1]).read()
s = json.load(open(sys.argv[2]))["summary"]
name, t = sys.argv[3], float(sys.argv[5]) - float(sys.argv[4])
top = s["tiers"]["work"][0]["admitted"]
m = re.search(r"work per priority at most ([0-9.]+)", s.get("modeReason", ""))
bound = float(m.group(1)) if m else None
opt = None
if "Optimal solution found" in log:
    opt = float(re.search(r"Objective value:\s*([-0-9.e+]+)", log).group(1))
    cell = f"{opt:.0f}"
else:
    b = re.findall(r"best possible -?([0-9.e+]+)", log)
    cell = "not proven" + (f" (at most {float(b[-1]):.0f})" if b else "")
def rel(a, b):  # a over b, relative to b
    return f"{100 * (a - b) / b:.1f}%" if a is not None and b else "-"
print(f"| {name} | {cell} | {t:.1f} s | "
      f"{bound if bound is not None else '-'} | {top} | "
      f"{f'{100 * (opt - top) / opt:.1f}%' if opt else '-'} | "
      f"{rel(bound, opt) if opt else '-'} |")
PY
done
