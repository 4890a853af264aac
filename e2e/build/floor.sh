#!/usr/bin/env bash
# Builds the Go floor webhook (e2e/build/floor: Go's standard library only, no module to pin
# beyond the toolchain) into a cache outside the repository, keyed by the Go version, rebuilt
# when its source changes (same build-once behaviour as e2e/build/istio.sh). Prints the binary's
# path last. Used by the pod-create benchmark (npm run bench:cluster).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
command -v go >/dev/null || { echo "floor build: Go is not installed (need Go 1.26+)" >&2; exit 1; }
cache_root="${SIDECAR_INJECTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sidecar-injector}/e2e"
bin="$cache_root/webhook-floor-$(go env GOVERSION)/bin"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false

# shellcheck source=lib.sh
. "$here/lib.sh"
src_hash="$(cat "$here/floor/"*.go "$here/floor/go.mod" | sha256sum | cut -c1-16)"
if [ "$(cat "$bin/.webhook-floor.src" 2>/dev/null)" != "$src_hash" ]; then rm -f "$bin/webhook-floor"; fi
go_build_once webhook-floor "$here/floor" . "" "$bin" "floor build"
echo "$src_hash" > "$bin/.webhook-floor.src"
echo "$bin/webhook-floor"
