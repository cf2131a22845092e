# cli_env.sh -- environment for running the CLI tests by hand.
#
# `make check` sets these itself.  To run tests/check_cli (or the wasp
# command on the fixtures) outside make, from a build directory:
#
#     . /path/to/source/tests/cli_env.sh [BUILDDIR]
#     ./tests/check_cli                       # all CLI tests
#     CK_RUN_CASE=bad ./tests/check_cli       # only the bad-input corpus
#     CK_FORK=no ./libtool --mode=execute valgrind -q tests/check_cli
#
# WASP_SRCDIR is where models/ and tests/fixtures/ live (this file's
# source tree); WASP_BIN is the wasp command of BUILDDIR (default: the
# current directory).

_wasp_here=$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")/.." && pwd)
_wasp_build=$(cd "${1:-.}" && pwd)
WASP_SRCDIR=$_wasp_here
WASP_BIN=$_wasp_build/src/cli/wasp
CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-60}
export WASP_SRCDIR WASP_BIN CK_DEFAULT_TIMEOUT
if [ ! -x "$WASP_BIN" ]; then
	echo "cli_env.sh: warning: $WASP_BIN is not built yet" >&2
fi
unset _wasp_here _wasp_build
