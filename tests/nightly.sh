#!/bin/sh
# nightly.sh -- the nightly loop end to end with a stub kubectl
# (tests/kubectl-stub, fixtures in tests/fixtures/kubectl): `wasp
# snapshot`, `wasp plan` + `wasp check` on the capture, `wasp apply` (dry
# run, --yes, a stale plan, a failing eviction, a second run).
# doc/snapshot.md, doc/apply.md.
set -eu
bin=${WASP_BIN:-src/cli/wasp}
src=${WASP_SRCDIR:-.}
stub=$src/tests/kubectl-stub
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wasp-nightly-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok - $1"; }
bad() { echo "FAIL - $1"; fails=$((fails + 1)); }
check() { # check DESCRIPTION COMMAND...
	d=$1
	shift
	if "$@"; then ok "$d"; else bad "$d"; fi
}
has() { grep -q -- "$2" "$1"; }
hasnt() { ! grep -q -- "$2" "$1"; }

export KUBECTL_STUB_DIR="$tmp/fx" KUBECTL_STUB_LOG="$tmp/log"
mkdir "$tmp/fx"
cp "$src"/tests/fixtures/kubectl/* "$tmp/fx/"
reset() { rm -f "$tmp/log" "$tmp/log.in"; : >"$tmp/log"; }

# ---------------------------------------------------------------- snapshot
reset
"$bin" snapshot --kubectl "$stub" --kubeconfig "$tmp/kc" --context prod \
	-o "$tmp/snap.json" 2>"$tmp/err"
check "snapshot: exit 0" test $? -eq 0
check "snapshot: asks what is served" has "$tmp/log" \
	"^--kubeconfig $tmp/kc --context prod api-resources -o name\$"
check "snapshot: one get of the served kinds, fully qualified, all namespaces" \
	has "$tmp/log" "get nodes,pods,priorityclasses.scheduling.k8s.io,podgroups.scheduling.k8s.io,workloads.scheduling.k8s.io,topologies.kueue.x-k8s.io,poddisruptionbudgets.policy -A -o json\$"
check "snapshot: unserved kinds are not asked for" hasnt "$tmp/log" \
	"podgroups.scheduling.x-k8s.io"
check "snapshot: one line per skipped kind" test \
	"$(grep -c 'skipped .*: not served by the cluster' "$tmp/err")" -eq 7
check "snapshot: the Volcano PodGroup is among them" has "$tmp/err" \
	"skipped podgroups.scheduling.volcano.sh"
check "snapshot: the capture is one kind: List" has "$tmp/snap.json" \
	'"kind":[[:space:]]*"List"'
check "snapshot: no temporary file left" test \
	-z "$(find "$tmp" -maxdepth 1 -name '.snap*')"

reset
"$bin" snapshot -q --kubectl "$stub" -n ml -o "$tmp/snap-ml.json"
check "snapshot -n: namespaced kinds from the namespace" has "$tmp/log" \
	"get nodes,.* -n ml -o json\$"
check "snapshot -n: bound pods of other namespaces too" has "$tmp/log" \
	"get pods -A --field-selector=spec.nodeName!=,metadata.namespace!=ml -o json"
check "snapshot -n: they are in the capture" has "$tmp/snap-ml.json" '"dns-0"'

reset
if "$bin" snapshot -q --kubectl "$tmp/no-such-kubectl" -o "$tmp/none.json" \
	2>"$tmp/err"; then rc=0; else rc=$?; fi
check "snapshot: kubectl missing: exit 3" test "$rc" -eq 3
check "snapshot: kubectl missing: no file" test ! -e "$tmp/none.json"
cp "$tmp/fx/api-resources.txt" "$tmp/ar"
printf 'nodes\n' >"$tmp/fx/api-resources.txt"
: >"$tmp/fx/get.json.bad"
cp "$tmp/fx/get.json" "$tmp/get.json.keep"
echo '{"kind": "List", "items": 3}' >"$tmp/fx/get.json"
if "$bin" snapshot -q --kubectl "$stub" -o "$tmp/none.json" 2>"$tmp/err"; then
	rc=0; else rc=$?; fi
check "snapshot: output that is no List: exit 3, no file" \
	test "$rc" -eq 3 -a ! -e "$tmp/none.json"
cp "$tmp/ar" "$tmp/fx/api-resources.txt"
cp "$tmp/get.json.keep" "$tmp/fx/get.json"

# ---------------------------------------------------------------- plan
"$bin" plan -q -t 20 "$tmp/snap.json" -o "$tmp/plan.json"
check "plan of the capture passes wasp check" \
	"$bin" check -q --plan "$tmp/plan.json" "$tmp/snap.json"
check "the plan records the captured resourceVersions" has "$tmp/plan.json" \
	'"resourceVersion": "200"'
"$bin" plan -q -t 20 --preempt never "$tmp/snap.json" -o "$tmp/plan-never.json"
check "--preempt never: the plan passes wasp check" \
	"$bin" check -q --plan "$tmp/plan-never.json" "$tmp/snap.json"
check "--preempt never: no evictions" has "$tmp/plan-never.json" \
	'"evictions": \[\]'

# ---------------------------------------------------------------- apply
reset
"$bin" apply --kubectl "$stub" "$tmp/plan.json" >"$tmp/out"
check "apply: a dry run by default" hasnt "$tmp/log" "^create\|^patch"
check "apply dry run: only the live pods are read" test \
	"$(cat "$tmp/log")" = "get pods -A -o json"
check "apply dry run: shows the eviction" has "$tmp/out" \
	"would evict batch/batch-0: echo '{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\""
check "apply dry run: shows the placement" has "$tmp/out" \
	"would place ml/train-0: kubectl patch pod train-0 -n ml --type=json"

reset
"$bin" apply -q --yes --kubectl "$stub" --context prod "$tmp/plan.json" \
	>"$tmp/out"
check "apply --yes: exit 0" test $? -eq 0
grep -v '^--context prod get pods' "$tmp/log" | sed 's/^--context prod //' \
	| awk '{print $1, $2, $3}' >"$tmp/calls"
cat >"$tmp/want" <<'WANT'
create --raw /api/v1/namespaces/batch/pods/batch-0/eviction
create --raw /api/v1/namespaces/batch/pods/batch-1/eviction
patch pod train-0
patch pod train-1
WANT
check "apply --yes: evictions first, then the gang's placements" \
	cmp -s "$tmp/calls" "$tmp/want"
check "apply --yes: policy/v1 Eviction bodies" test \
	"$(grep -c '"kind":"Eviction","metadata":{"name":"batch-' "$tmp/log.in")" -eq 2
check "apply --yes: the planned node as required affinity" has "$tmp/log" \
	'patch pod train-1 .*"matchFields":\[{"key":"metadata.name","operator":"In","values":\["n1"\]}\]'
check "apply --yes: our gate removed, by index, after a test" has "$tmp/log" \
	'{"op":"test","path":"/spec/schedulingGates/1/name","value":"wasp.dev/planned"},{"op":"remove","path":"/spec/schedulingGates/1"}'
check "apply --yes: the ungated pod is left alone" hasnt "$tmp/log" "web-0"

# stale: a pod the plan places changed since the capture
reset
sed 's/"resourceVersion": "201"/"resourceVersion": "999"/' \
	"$src/tests/fixtures/kubectl/live.json" >"$tmp/fx/live.json"
if "$bin" apply --yes --kubectl "$stub" "$tmp/plan.json" >"$tmp/out" \
	2>"$tmp/err"; then rc=0; else rc=$?; fi
check "apply: a stale plan: exit 1" test "$rc" -eq 1
check "apply: a stale plan: nothing done" hasnt "$tmp/log" "^create\|^patch"
check "apply: a stale plan: names the pod" has "$tmp/err" \
	"stale: pod ml/train-1: its resourceVersion changed (captured 201, now 999)"
cp "$src/tests/fixtures/kubectl/live.json" "$tmp/fx/live.json"

# the first failure stops the run
reset
if KUBECTL_STUB_FAIL=batch-1 "$bin" apply -q --yes --kubectl "$stub" \
	"$tmp/plan.json" >"$tmp/out" 2>"$tmp/err"; then rc=0; else rc=$?; fi
check "apply: a failing eviction: exit 1" test "$rc" -eq 1
check "apply: a failing eviction: nothing after it" hasnt "$tmp/log" "^patch"
check "apply: a failing eviction: says what was done" has "$tmp/err" \
	"stopped after 1 of 5 actions"
check "apply: a failing eviction: kubectl's reason" has "$tmp/err" \
	"disruption budget"

# a second run after everything was done does nothing
reset
cp "$src/tests/fixtures/kubectl/live-after.json" "$tmp/fx/live.json"
"$bin" apply --yes --kubectl "$stub" "$tmp/plan.json" >"$tmp/out"
check "apply again: exit 0" test $? -eq 0
check "apply again: nothing to do" hasnt "$tmp/log" "^create\|^patch"
check "apply again: says so" has "$tmp/out" "done already: ml/train-0"

# a plan without resourceVersions is refused
sed 's/"snapshot"/"snapshotX"/' "$tmp/plan.json" >"$tmp/plan-old.json"
if "$bin" apply --kubectl "$stub" "$tmp/plan-old.json" >/dev/null \
	2>"$tmp/err"; then rc=0; else rc=$?; fi
check "apply: no recorded versions: refused" test "$rc" -eq 1
echo '{"apiVersion": "wasp.dev/v1alpha1", "kind": "Plan", "placements": 3}' \
	>"$tmp/bad.json"
if "$bin" apply --kubectl "$stub" "$tmp/bad.json" >/dev/null 2>"$tmp/err"; then
	rc=0; else rc=$?; fi
check "apply: a bad plan: exit 2 with a position" \
	test "$rc" -eq 2 -a -n "$(grep "bad.json:1:" "$tmp/err")"

# ---------------------------------------------------------------- deploy
# the CronJob's script (deploy/nightly.sh) with wasp and the stub on PATH
cp "$src/tests/fixtures/kubectl/live.json" "$tmp/fx/live.json"
mkdir "$tmp/bin"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$bin" >"$tmp/bin/wasp"
printf '#!/bin/sh\nexec "%s" "$@"\n' "$stub" >"$tmp/bin/kubectl"
chmod +x "$tmp/bin/wasp" "$tmp/bin/kubectl"
reset
if PATH="$tmp/bin:$PATH" WASP_PLANS="$tmp/plans" WASP_APPLY=no \
	WASP_PLAN_OPTIONS="-q --preempt never -t 20" \
	sh "$src/deploy/nightly.sh" >"$tmp/out" 2>&1; then rc=0; else rc=$?; fi
check "deploy/nightly.sh: exit 0" test "$rc" -eq 0
run=$(find "$tmp/plans" -mindepth 1 -maxdepth 1 -type d | head -1)/
check "deploy/nightly.sh: keeps snapshot and plan" \
	test -s "${run}snapshot.json" -a -s "${run}plan.json"
check "deploy/nightly.sh: the plan is checked" has "${run}check.txt" \
	"plan is valid"
check "deploy/nightly.sh: a dry run unless WASP_APPLY=yes" \
	hasnt "$tmp/log" "^create\|^patch"
check "deploy/nightly.sh: preemption off: nothing to evict" \
	hasnt "${run}apply-dry-run.log" "would evict"

# ---------------------------------------------------------------- docs
# the example suite of bench/README.md is read by bench's suite reader
sed -n '/^```yaml/,/^```$/p' "$src/bench/README.md" | sed '1d;$d' \
	>"$tmp/suite.yaml"
if "$bin" bench "$tmp/suite.yaml" -i no-such -o "$tmp/b" 2>"$tmp/err"; then
	rc=0; else rc=$?; fi
check "bench/README.md's example suite is read (only -i fails)" \
	test "$rc" -eq 2 -a -n "$(grep "no instance 'no-such'" "$tmp/err")"

echo "$fails failed"
test "$fails" -eq 0
