#!/bin/sh
# wasp-nightly -- one night of the loop in deploy/cronjob.yaml
# (doc/deploy.md): capture -> plan -> optional apply -> keep the plan.
#
# Settings come from the ConfigMap wasp-options as environment:
#   WASP_PLAN_OPTIONS   options of `wasp plan` (default: --preempt never)
#   WASP_SNAPSHOT_OPTIONS  options of `wasp snapshot` (e.g. -n team-a)
#   WASP_APPLY          "yes": carry the plan out; else a dry run only
#   WASP_PLANS          where runs are kept (default /var/lib/wasp/plans)
#   WASP_KEEP_DAYS      runs older than this are removed (default 14)
set -eu
plans=${WASP_PLANS:-/var/lib/wasp/plans}
run="$plans/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$run"
echo "wasp-nightly: run $run"
# shellcheck disable=SC2086 # the options are words on purpose
wasp snapshot ${WASP_SNAPSHOT_OPTIONS:-} -o "$run/snapshot.json"
# shellcheck disable=SC2086
wasp plan ${WASP_PLAN_OPTIONS:---preempt never} -o "$run/plan.json" \
	"$run/snapshot.json"
wasp check -q --plan "$run/plan.json" "$run/snapshot.json" \
	>"$run/check.txt"
if [ "${WASP_APPLY:-no}" = yes ]; then
	wasp apply --yes "$run/plan.json" >"$run/apply.log" 2>&1 || {
		cat "$run/apply.log"
		exit 1
	}
else
	wasp apply "$run/plan.json" >"$run/apply-dry-run.log" 2>&1 || true
fi
cat "$run/apply"*.log
find "$plans" -mindepth 1 -maxdepth 1 -type d \
	-mtime +"${WASP_KEEP_DAYS:-14}" -exec rm -rf {} +
echo "wasp-nightly: done"
