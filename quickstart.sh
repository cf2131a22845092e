#!/usr/bin/env bash
# quickstart.sh -- build wasp on a fresh Debian 12 machine and try it.
#
#   ./quickstart.sh          install the Debian packages, build, and plan
#                            models/examples/gpu16.yaml (text report)
#   ./quickstart.sh check    the same set-up, then run the test suite
#                            (`make check`); failing tests' logs are shown
#
# Safe to run again: packages already installed are not reinstalled (and
# apt is not touched at all when none is missing), autoreconf and configure
# run only when their inputs changed.  sudo is used only when not root.
set -euo pipefail

PACKAGES=(build-essential autoconf automake libtool pkg-config
	  libglpk-dev glpk-utils coinor-cbc libyaml-dev libcjson-dev check
	  chromium zlib1g-dev golang-go)

say() { printf '\n==> %s\n' "$*"; }
die() { printf 'quickstart.sh: error: %s\n' "$*" >&2; exit 1; }

usage() {
	cat <<'EOF'
Usage: ./quickstart.sh [check]

  (no argument)  install the Debian packages wasp needs, build it, and run
                 `wasp plan --format text models/examples/gpu16.yaml`
  check          install and build as above, then run `make check`
EOF
}

mode=run
case "${1:-}" in
"") ;;
check) mode=check ;;
-h | --help) usage; exit 0 ;;
*) usage >&2; exit 2 ;;
esac

cd "$(dirname "$0")"
jobs=$(nproc 2>/dev/null || echo 2)

# ---------------------------------------------------------------- packages
install_packages() {
	local missing=() p sudo=()
	for p in "${PACKAGES[@]}"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed'; then
			missing+=("$p")
		fi
	done
	if [ ${#missing[@]} -eq 0 ]; then
		say "Debian packages: all ${#PACKAGES[@]} already installed"
		return
	fi
	if [ "$(id -u)" -ne 0 ]; then
		command -v sudo >/dev/null 2>&1 ||
			die "not root and no sudo: install as root: apt-get install ${missing[*]}"
		sudo=(sudo)
	fi
	command -v apt-get >/dev/null 2>&1 ||
		die "apt-get not found (this script is for Debian 12); install: ${missing[*]}"
	say "Installing Debian packages: ${missing[*]}"
	"${sudo[@]}" apt-get update
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends "${missing[@]}"
}

# ---------------------------------------------------------------- build
build() {
	if [ ! -x configure ] || [ ! -f Makefile.in ] ||
		[ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
		say "autoreconf -fi"
		autoreconf -fi
	else
		say "autoreconf: configure is up to date"
	fi
	if [ ! -f Makefile ] || [ ! -f config.status ] ||
		[ configure -nt config.status ] || [ Makefile.in -nt Makefile ]; then
		say "./configure"
		./configure
	else
		say "./configure: already configured"
	fi
	say "make -j$jobs"
	make -j"$jobs"
}

# Print the logs of the tests that failed (from the .trs files automake's
# test driver writes), or the suite log if none can be told apart.
show_failed_logs() {
	local trs log shown=0
	for trs in tests/*.trs; do
		[ -f "$trs" ] || continue
		if grep -qE '^:test-result: (FAIL|ERROR|XPASS)' "$trs"; then
			log="${trs%.trs}.log"
			printf '\n===== %s =====\n' "$log"
			cat "$log" 2>/dev/null || echo "(no log)"
			shown=1
		fi
	done
	if [ "$shown" -eq 0 ] && [ -f test-suite.log ]; then
		printf '\n===== test-suite.log =====\n'
		cat test-suite.log
	fi
}

install_packages
build

if [ "$mode" = run ]; then
	say "src/cli/wasp plan --format text models/examples/gpu16.yaml"
	src/cli/wasp plan --format text models/examples/gpu16.yaml
	say "Done.  Next: src/cli/wasp --help, man ./doc/wasp.1, models/examples/README.md"
else
	say "make -j$jobs check"
	if ! make -j"$jobs" check; then
		show_failed_logs
		die "make check failed (logs above)"
	fi
	say "All tests passed."
fi
