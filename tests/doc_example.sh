#!/bin/sh
# doc_example.sh -- the worked example of doc/library.md ("Scheduler
# plugins") is tests/example_plugin.c, which make check builds and runs:
# fail when the two copies differ.
set -eu
srcdir=${WASP_SRCDIR:-${srcdir:-.}}
doc=$srcdir/doc/library.md
tmp=$(mktemp "${TMPDIR:-/tmp}/wasp-doc-XXXXXX")
trap 'rm -f "$tmp"' EXIT
awk '/<!-- example: tests\/example_plugin.c -->/ {on = 1; next}
     on && /^```c$/ {inside = 1; next}
     inside && /^```$/ {exit}
     inside {print}' "$doc" > "$tmp"
if ! diff -u "$srcdir/tests/example_plugin.c" "$tmp"; then
	echo "doc_example.sh: doc/library.md and tests/example_plugin.c differ" >&2
	exit 1
fi
echo "doc_example.sh: the example in doc/library.md is the tested one"
