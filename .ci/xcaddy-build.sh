#!/usr/bin/env bash
# Builds a custom Caddy with the x402 modules the way a user would, with
# xcaddy, from this checkout, and checks that the modules are in it.
#
#   .ci/xcaddy-build.sh            # build with cgo (the default here)
#   CGO_ENABLED=0 .ci/xcaddy-build.sh
#   OUTPUT=/usr/local/bin/caddy .ci/xcaddy-build.sh   # keep the binary
#
# Without OUTPUT the binary is built in a temporary folder and removed.
#
# Notes on what xcaddy needs here:
#
# - The xcaddy command is built from a pinned version inside a throwaway
#   module: "go install ...xcaddy@latest" is refused by this machine's module
#   proxy.
# - The Caddy modules live in the caddymodule package, not at the module root,
#   so "--with MODULE=$repo" (which blank-imports the module root) does not
#   apply. Instead:
#
#     --with    MODULE/caddymodule@v0.0.0-00010101000000-000000000000
#     --replace MODULE@v0.0.0-00010101000000-000000000000=$repo
#
#   The --with adds the blank import and makes xcaddy "go get" the package at
#   that version; the versioned --replace points that version at the local
#   checkout. With an unversioned replace, xcaddy skips the "go get" of the
#   plugin and the go command then looks the module up on the network
#   ("git ls-remote https://github.com/caddy-x402/caddy-x402"), which fails
#   for an unpublished or offline module.
# - GOPRIVATE keeps the go command from asking the public proxy and checksum
#   database about the (replaced, unpublished) module.
# - Once the module is published, a user builds it with just
#   "xcaddy build v2.11.9 --with github.com/caddy-x402/caddy-x402/caddymodule".
# - xcaddy sets CGO_ENABLED from the environment and builds without cgo unless
#   CGO_ENABLED=1. Without cgo go-ethereum recovers signatures in pure Go,
#   about 3-4x slower (roughly 50 us with cgo, 170-200 us without), which
#   matters to a facilitator verifying many payments.
set -euo pipefail

XCADDY_VERSION=${XCADDY_VERSION:-v0.4.5}
CADDY_VERSION=${CADDY_VERSION:-v2.11.9}
MODULE=github.com/caddy-x402/caddy-x402
# The version the local checkout stands in for (the zero pseudo-version).
LOCAL_VERSION=v0.0.0-00010101000000-000000000000
export CGO_ENABLED=${CGO_ENABLED:-1}

repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/xcaddy-build.XXXXXX")
keep=${KEEP_TMP:-0}
cleanup() { if [ "$keep" != 1 ]; then rm -rf "$tmp"; fi; }
trap cleanup EXIT
output=${OUTPUT:-$tmp/caddy}

echo "==> building xcaddy $XCADDY_VERSION in $tmp/xcaddy-src" >&2
mkdir -p "$tmp/xcaddy-src"
(
	cd "$tmp/xcaddy-src"
	go mod init tmp >/dev/null 2>&1
	go get "github.com/caddyserver/xcaddy/cmd/xcaddy@$XCADDY_VERSION"
	go build -o "$tmp/xcaddy" github.com/caddyserver/xcaddy/cmd/xcaddy
)

echo "==> xcaddy build $CADDY_VERSION with $MODULE from $repo (CGO_ENABLED=$CGO_ENABLED)" >&2
(
	cd "$tmp"
	GOPRIVATE=$MODULE XCADDY_SKIP_CLEANUP=0 \
		"$tmp/xcaddy" build "$CADDY_VERSION" \
		--with "$MODULE/caddymodule@$LOCAL_VERSION" \
		--replace "$MODULE@$LOCAL_VERSION=$repo" \
		--output "$output"
)

echo "==> checking the modules in $output" >&2
"$output" version
mods=$("$output" list-modules | grep x402 || true)
echo "$mods"
status=0
for m in x402 http.handlers.x402 http.handlers.x402_facilitator; do
	if ! grep -qx "$m" <<<"$mods"; then
		echo "MISSING module: $m" >&2
		status=1
	fi
done
if ! "$output" x402 --help >/dev/null; then
	echo "MISSING command: caddy x402" >&2
	status=1
fi
if [ "$status" = 0 ]; then
	echo "OK: $output has the x402 modules and the x402 command" >&2
fi
exit "$status"
