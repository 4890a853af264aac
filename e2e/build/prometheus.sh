#!/usr/bin/env bash
# Builds the real Prometheus and promtool from a pinned github.com/prometheus/prometheus module
# version into a cache outside the repository, keyed by that version (same build-once behaviour
# as e2e/build/build.sh), and copies prometheus-operator's CRDs for PrometheusRule,
# ServiceMonitor and PodMonitor from that project's pinned module:
#   bin/prometheus   the server the e2e scenario 29-monitoring runs on loopback (HTTP API only:
#                    without the builtinassets tag there is no web UI, which no test needs)
#   bin/promtool     `check rules` and `test rules` on deploy/monitoring/ (npm test)
#   crds/*.yaml      monitoring.coreos.com CRDs, applied to the e2e apiserver so it validates
#                    the PrometheusRule and ServiceMonitor that manifests and the chart write
#
#   e2e/build/prometheus.sh                 build what is missing, print the cache directory last
#   e2e/build/prometheus.sh --print-dir     print the cache directory only (no Go needed, builds nothing)
#   e2e/build/prometheus.sh --regen         rewrite the wrapper go.mod/go.sum from the pin below (maintainers)
#
# prometheus/prometheus has no replace directives, so the wrapper module only requires it as a
# tool; its committed go.sum is the pin (-mod=readonly). Measured cold on 2 cores: see docs/e2e.md.
set -euo pipefail

PROMETHEUS_MODULE_VERSION=v0.316.0 # Prometheus 3.16.0
PROMETHEUS_VERSION=3.16.0
# The module proxy serves v0.85.0 of the operator's root module (newer versions answer 403 here).
OPERATOR_VERSION=v0.85.0
OPERATOR_SUM='h1:M5xLCLEoaW2IJfnuCwFzzpL+jSVQu3KGT84Pye+fW8s='

here="$(cd "$(dirname "$0")" && pwd)"
cache_root="${SIDECAR_INJECTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sidecar-injector}/e2e"
dir="$cache_root/prometheus-$PROMETHEUS_MODULE_VERSION"
if [ "${1:-}" = "--print-dir" ]; then echo "$dir"; exit 0; fi
bin="$dir/bin"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false

die() { echo "prometheus build: $*" >&2; exit 1; }
command -v go >/dev/null || die "Go is not installed (need Go 1.26+ and the Go module proxy)"

# shellcheck source=lib.sh
. "$here/lib.sh"
if [ "${1:-}" = "--regen" ]; then
  regen_tool_wrapper "$here/prometheus" "github.com/prometheus/prometheus/cmd/prometheus@$PROMETHEUS_MODULE_VERSION" \
    "github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_MODULE_VERSION"
fi

# `prometheus --version` and `promtool --version` print empty fields unless stamped.
v=github.com/prometheus/common/version
ldflags="-X $v.Version=$PROMETHEUS_VERSION -X $v.Revision=$PROMETHEUS_MODULE_VERSION -X $v.Branch=release-${PROMETHEUS_VERSION%.*} -X $v.BuildUser=sidecar-injector-e2e"

build() { go_build_once "$1" "$here/prometheus" "$2" "$ldflags" "$bin" "prometheus build"; }
build promtool github.com/prometheus/prometheus/cmd/promtool
build prometheus github.com/prometheus/prometheus/cmd/prometheus

crds="$dir/crds"
if [ ! -s "$crds/monitoring.coreos.com_prometheusrules.yaml" ]; then
  json="$(cd "$here/prometheus" && go mod download -json "github.com/prometheus-operator/prometheus-operator@$OPERATOR_VERSION")" \
    || die "cannot download github.com/prometheus-operator/prometheus-operator@$OPERATOR_VERSION from the Go module proxy"
  sum="$(sed -n 's/.*"Sum": "\(.*\)".*/\1/p' <<<"$json")"
  src="$(sed -n 's/.*"Dir": "\(.*\)".*/\1/p' <<<"$json")"
  [ "$sum" = "$OPERATOR_SUM" ] || die "prometheus-operator@$OPERATOR_VERSION has checksum $sum, expected $OPERATOR_SUM"
  mkdir -p "$crds.tmp"
  for kind in prometheusrules servicemonitors podmonitors; do
    cp "$src/example/prometheus-operator-crd/monitoring.coreos.com_$kind.yaml" "$crds.tmp/"
  done
  chmod u+w "$crds.tmp"/*
  rm -rf "$crds"; mv "$crds.tmp" "$crds"
fi
echo "$dir"
