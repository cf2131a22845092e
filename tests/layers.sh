#!/bin/sh
# layers.sh -- the pipeline's layering, checked on the built objects.
#
# Every object of libwasp_core may use symbols defined in its own folder
# or in a folder of a lower layer, never in a higher one:
#
#   base < io < model < reduce < solve < plan < run < api (src/api.c)
#   gen uses base only.
#
# Reads `nm` of the objects libtool built (src/*/.libs/*.o), so it checks
# calls, not just #include lines.  Run from the build directory; objects
# whose source is gone (a file split or removed since that build) are not
# read.  WASP_SRCDIR names the source tree of a VPATH build.
set -eu
top=${1:-.}
srcdir=${WASP_SRCDIR:-$top}
layer() {
	case $1 in
	src/base/*) echo 0 ;; src/io/*) echo 1 ;; src/model/*) echo 2 ;;
	src/reduce/*) echo 3 ;; src/solve/*) echo 4 ;; src/plan/*) echo 5 ;;
	src/run/*) echo 6 ;; src/gen/*) echo 1 ;; src/*) echo 7 ;;
	*) echo 9 ;;
	esac
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wasp-layers-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
objs=
for o in $(find "$top/src" -path '*/.libs/*.o' | sort); do
	rel=$(echo "${o#$top/}" | sed 's|/\.libs/|/|')
	[ -f "$srcdir/${rel%.o}.c" ] && objs="$objs $o"
done
[ -n "$objs" ] || { echo "layers.sh: no objects under $top/src (build first)" >&2; exit 1; }
for o in $objs; do
	rel=${o#$top/}
	rel=$(echo "$rel" | sed 's|/\.libs/|/|')
	nm -g --defined-only "$o" | awk -v f="$rel" '$2 ~ /[TDBR]/ {print $3, f}'
done | sort > "$tmp/defs"
bad=0
for o in $objs; do
	rel=$(echo "${o#$top/}" | sed 's|/\.libs/|/|')
	me=$(layer "$rel")
	for sym in $(nm -u "$o" | awk '{print $2}'); do
		def=$(awk -v s="$sym" '$1 == s {print $2; exit}' "$tmp/defs")
		[ -n "$def" ] || continue
		them=$(layer "$def")
		case $rel in src/gen/*) case $def in src/base/*|src/gen/*) continue ;; esac
			echo "layers.sh: $rel uses $sym of $def (gen may use base only)"; bad=1; continue ;;
		esac
		if [ "$them" -gt "$me" ]; then
			echo "layers.sh: ${rel%.o}.c uses $sym of ${def%.o}.c, a higher layer"
			bad=1
		fi
	done
done
[ "$bad" -eq 0 ] && echo "layers.sh: every call goes down the pipeline"
exit $bad
