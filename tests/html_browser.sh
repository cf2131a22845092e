#!/bin/sh
# html_browser.sh -- the HTML report in a real browser: headless Chromium
# renders the page of a bundled example (`wasp plan --format html`) and
# of a 2,048-node generated cluster (`wasp report`), each to PNG; the
# test checks that every render succeeded and that the image is not
# blank (tests/png_stats: distinct colours, share of non-white pixels).
# Every plan drawn here passes `wasp check` first.
#
# The command-line part (both ways to write a page, usage errors) runs
# everywhere; the browser part skips (exit 77) when chromium or
# tests/png_stats (built with zlib) is missing; ./quickstart.sh installs
# both.  Chromium runs with a
# temporary HOME and profile, and with --no-sandbox, which it needs as
# root (CI runs as root).
set -eu

: "${WASP_BIN:?}" "${WASP_SRCDIR:?}"
here=$(dirname "$0")
stats="$here/png_stats"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" \
	XDG_CACHE_HOME="$tmp/home/.cache"
mkdir -p "$HOME"

fail() { echo "FAIL: $*"; exit 1; }

# shot PAGE PNG HEIGHT: render the page, check the picture
shot() {
	timeout 180 "$chromium" --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --user-data-dir="$tmp/profile" \
		--window-size=1280,"$3" --screenshot="$2" "file://$1" \
		>"$tmp/chromium.log" 2>&1 ||
		{ cat "$tmp/chromium.log"; fail "chromium could not render $1"; }
	[ -s "$2" ] || { cat "$tmp/chromium.log"; fail "no screenshot of $1"; }
	png=$(basename "$2")
	# the running-work grey and the free-bar grey of the picture
	set -- $("$stats" "$2" 9aa4b1 eef1f4) || fail "png_stats $png"
	echo "$png: ${1}x$2, $3 colours, $4 per mille not white;" \
		"$5 running-grey and $6 free-bar pixels"
	[ "$1" -eq 1280 ] || fail "$png: width $1, expected 1280"
	[ "$3" -ge 12 ] || fail "$png: $3 colours: the render looks blank"
	[ "$4" -ge 20 ] || fail "$png: $4 per mille not white: looks blank"
	[ "$5" -ge 500 ] || fail "$png: $5 running-grey pixels: no picture"
	[ "$6" -ge 500 ] || fail "$png: $6 free-bar pixels: no picture"
}

# a bundled example, through `wasp plan --format html`
ex="$WASP_SRCDIR/models/examples/gpu16.yaml"
"$WASP_BIN" plan -q -o "$tmp/gpu16.json" "$ex"
"$WASP_BIN" check -q --plan "$tmp/gpu16.json" "$ex" >/dev/null ||
	fail "the gpu16 plan does not check"
"$WASP_BIN" plan -q --format html -o "$tmp/gpu16.html" "$ex"
grep -q 'the plan is valid' "$tmp/gpu16.html" || fail "gpu16 page: no verdict"

# 2,048 generated nodes, through `wasp report`
"$WASP_BIN" gen --nodes 2048 --levels 2 --fanout 8 --gangs 40 \
	--max-gang 16 -o "$tmp/g2048.yaml"
"$WASP_BIN" plan -q --mode greedy -o "$tmp/g2048.json" "$tmp/g2048.yaml"
"$WASP_BIN" check -q --plan "$tmp/g2048.json" "$tmp/g2048.yaml" >/dev/null ||
	fail "the 2048-node plan does not check"
"$WASP_BIN" report -q -o "$tmp/g2048.html" "$tmp/g2048.json" "$tmp/g2048.yaml"
n=$(grep -o '<g class="nd' "$tmp/g2048.html" | wc -l)
[ "$n" -eq 2048 ] || fail "2048-node page draws $n nodes"

# usage errors exit 2, an unreadable plan 3; -o leaves no file behind
for case in "2 $tmp/g2048.json" \
	"2 --detail-nodes 0 $tmp/g2048.json $tmp/g2048.yaml" \
	"2 $ex $ex" "3 $tmp/missing.json $tmp/g2048.yaml"; do
	set -- $case
	want=$1
	shift
	st=0
	"$WASP_BIN" report -o "$tmp/bad.html" "$@" >/dev/null 2>&1 || st=$?
	[ "$st" -eq "$want" ] || fail "wasp report $*: exit $st, expected $want"
	[ ! -e "$tmp/bad.html" ] || fail "wasp report $* wrote a page"
done
st=0
"$WASP_BIN" plan --format htm "$ex" >/dev/null 2>&1 || st=$?
[ "$st" -eq 2 ] || fail "wasp plan --format htm: exit $st, expected 2"
echo "command line: pages written, usage errors refused"

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
	echo "SKIP: chromium is not installed (apt-get install chromium)"
	exit 77
fi
if [ ! -x "$stats" ]; then
	echo "SKIP: tests/png_stats was not built (zlib missing)"
	exit 77
fi
shot "$tmp/gpu16.html" "$tmp/gpu16.png" 1000
shot "$tmp/g2048.html" "$tmp/g2048.png" 2400
echo "PASS: both pages render"
