#!/usr/bin/env bash
# Builds the live Istio peer from a pinned istio.io/istio module version into a cache outside the
# repository, keyed by that version (same build-once behaviour as e2e/build/build.sh):
#   bin/istioctl                 the real istioctl (kube-inject is the differential-testing peer)
#   bin/istio-injector-server    our small Go program serving Istio's own injection webhook handler
#                                (pkg/kube/inject) over HTTPS, for the speed comparison
#   bin/istio-gateway-render     our small Go program rendering Istio's gateway deployment templates
#                                with Istio's template functions and types (src/istio/gateway-data tests)
#   config/inject-config.yaml    the istio-sidecar-injector ConfigMap's `config` key  } rendered by this
#   config/values.json           the istio-sidecar-injector ConfigMap's `values` key  } istioctl's
#   config/mesh.yaml             the istio ConfigMap's `mesh` key                     } `manifest generate`
# Peer and config come from the same build, so they always match. Istio's files are never committed.
#
#   e2e/build/istio.sh           build what is missing, print the cache directory (bin/ and config/) last
#   e2e/build/istio.sh --regen   rewrite the wrapper go.mod/go.sum from the pin below (maintainers)
#
# Pin: the conformance data in ../shared/conformance/istio is from Istio commit 86c9f01fd73
# (2026-08-22). The module proxy has no pseudo-version for that commit; eed52ebb66ad (2026-08-27,
# VERSION file 1.31) is the newest listed one and the one known to resolve cleanly, five days later.
set -euo pipefail

ISTIO_MODULE_VERSION=v0.0.0-20260827124520-eed52ebb66ad
ISTIO_REVISION=eed52ebb66ad
ISTIO_VERSION=1.31-dev # upstream's Makefile stamps $(cat VERSION)-dev on untagged builds

here="$(cd "$(dirname "$0")" && pwd)"
cache_root="${SIDECAR_INJECTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sidecar-injector}/e2e"
dir="$cache_root/istio-$ISTIO_MODULE_VERSION"
bin="$dir/bin"
cfg="$dir/config"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false

die() { echo "istio build: $*" >&2; exit 1; }
command -v go >/dev/null || die "Go is not installed (need Go 1.26+ and the Go module proxy)"

# shellcheck source=lib.sh
. "$here/lib.sh"
if [ "${1:-}" = "--regen" ]; then regen_tool_wrapper "$here/istio" "istio.io/istio/istioctl/cmd/istioctl@$ISTIO_MODULE_VERSION"; fi

ldflags="-X istio.io/istio/pkg/version.buildVersion=$ISTIO_VERSION \
-X istio.io/istio/pkg/version.buildGitRevision=$ISTIO_REVISION \
-X istio.io/istio/pkg/version.buildStatus=Clean \
-X istio.io/istio/pkg/version.buildTag=$ISTIO_MODULE_VERSION"

build() { go_build_once "$1" "$here/istio" "$2" "$ldflags" "$bin" "istio build"; }

build istioctl istio.io/istio/istioctl/cmd/istioctl
# The injector server and the gateway renderer are our code: rebuilt when their source or the module pins change.
for prog in injector-server gateway-render; do
  src_hash="$(cat "$here/istio/$prog/"*.go "$here/istio/go.mod" "$here/istio/go.sum" | sha256sum | cut -c1-16)"
  if [ "$(cat "$bin/.istio-$prog.src" 2>/dev/null)" != "$src_hash" ]; then rm -f "$bin/istio-$prog"; fi
  build "istio-$prog" "./$prog"
  echo "$src_hash" > "$bin/.istio-$prog.src"
done

# The three config files, from the ConfigMaps istioctl renders from its embedded charts (default
# profile, revision "default"). Extracted by our own small Node script (no yq on the machine).
if [ ! -s "$cfg/mesh.yaml" ] || [ ! -s "$cfg/values.json" ] || [ ! -s "$cfg/inject-config.yaml" ]; then
  command -v node >/dev/null || die "node is needed to extract the config files"
  mkdir -p "$cfg"
  "$bin/istioctl" manifest generate --set profile=default > "$cfg/manifest.yaml.tmp" \
    || die "istioctl manifest generate failed"
  mv "$cfg/manifest.yaml.tmp" "$cfg/manifest.yaml"
  (cd "$here/../.." && node --import tsx scripts/istio-extract-config.ts "$cfg/manifest.yaml" "$cfg") \
    || die "extracting the ConfigMaps from $cfg/manifest.yaml failed"
fi
echo "$dir"
