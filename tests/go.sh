#!/bin/sh
# go.sh -- the Go packages (bindings/go) tested against this build tree:
# the cgo binding links the libwasp just built (CGO_CFLAGS, CGO_LDFLAGS,
# LD_LIBRARY_PATH), the pure-Go client talks to the wasp command just
# built (WASP_BIN) and must build with CGO_ENABLED=0.
#
# Skips (exit 77) when no Go toolchain is installed.  Nothing is fetched
# (GOPROXY=off; the module has no requirements) and nothing is written to
# $HOME: GOPATH lives in a temporary folder, the build cache in the build
# tree (.gocache, removed by `make clean`).
set -eu
if ! command -v go >/dev/null 2>&1; then
	echo "go.sh: SKIP: no Go toolchain (apt-get install golang-go)"
	exit 77
fi
src=${WASP_SRCDIR:?run from make check}
build=${WASP_BUILDDIR:?run from make check}
if ldd "$build/.libs/libwasp.so" 2>/dev/null | grep -q 'libasan\|libtsan'; then
	echo "go.sh: SKIP: libwasp is built with a sanitizer (cgo cannot load it)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wasp-go-XXXXXX")
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
HOME=$tmp
GOPATH=$tmp/gopath
# go does not track headers outside the package: a cache per wasp.h
# keeps a changed struct from running against stale cgo objects
GOCACHE=$build/.gocache/$(cksum <"$src/src/wasp.h" | cut -d' ' -f1)
GOFLAGS=-mod=mod
GOPROXY=off
GOSUMDB=off
GO111MODULE=on
CGO_CFLAGS="-I$src/src"
CGO_LDFLAGS="-L$build/.libs"
LD_LIBRARY_PATH="$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export HOME GOPATH GOCACHE GOFLAGS GOPROXY GOSUMDB GO111MODULE CGO_CFLAGS \
	CGO_LDFLAGS LD_LIBRARY_PATH
cd "$src/bindings/go"
go version
echo "go.sh: go vet ./..."
go vet ./...
echo "go.sh: the client, built and tested with CGO_ENABLED=0"
CGO_ENABLED=0 go test -count=1 ./client
echo "go.sh: the cgo binding and the example"
go test -count=1 $(go list ./... | grep -v /client)
