#!/usr/bin/env bash
# Builds the real control plane (kube-apiserver, kube-controller-manager, etcd), kubectl and helm from
# pinned Go module versions into a cache outside the repository, keyed by those versions.
# A second run with the cache present only checks the binaries and takes seconds.
#
#   e2e/build/build.sh            build what is missing, print the bin directory last
#   e2e/build/build.sh --regen    rewrite the wrapper go.mod/go.sum from the pins below (maintainers)
#   e2e/build/build.sh --print-bin-dir   print the bin directory only (no Go needed, builds nothing)
#
# Why wrapper modules: `go install k8s.io/kubernetes/cmd/...@v` is refused because that module
# replaces its staging modules (k8s.io/api, ... at v0.0.0) with ./staging paths. The wrapper in
# kubernetes/ replaces each of them with the published v0.<minor>.<patch>; the list is derived
# from the kubernetes go.mod itself (--regen), never written by hand.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=versions.sh
. "$here/versions.sh"
# shellcheck source=lib.sh
. "$here/lib.sh"
key="k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}_helm-${HELM_VERSION}"
cache_root="${SIDECAR_INJECTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sidecar-injector}/e2e"
bin="$cache_root/$key/bin"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false
k8s_minor="${K8S_VERSION#v1.}"; k8s_minor="${k8s_minor%%.*}"
if [ "${1:-}" = "--print-bin-dir" ]; then echo "$bin"; exit 0; fi

die() { echo "e2e build: $*" >&2; exit 1; }
command -v go >/dev/null || die "Go is not installed (need Go 1.26+ and the Go module proxy)"

regen() {
  local m gomod
  # kubernetes: replace every staging module with its published version
  m="$here/kubernetes"
  gomod="$(cd "$m" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
  [ -f "$gomod" ] || die "cannot download k8s.io/kubernetes@$K8S_VERSION from the Go module proxy"
  (cd "$m"
    printf 'module sidecar-injector.local/e2e/kubernetes\n\ngo 1.26.0\n\n' > go.mod
    # The main module's go and godebug lines set the binary's GODEBUG defaults: copy upstream's.
    grep -E '^godebug ' "$gomod" >> go.mod || true
    rm -f go.sum
    for s in $(grep -E '^\s*k8s\.io/[a-z0-9-]+ => \./staging/' "$gomod" | awk '{print $1}'); do
      go mod edit "-replace=$s=$s@$STAGING_VERSION"
    done
    go get "k8s.io/kubernetes@$K8S_VERSION"
    go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-controller-manager@$K8S_VERSION" "k8s.io/kubernetes/cmd/kubectl@$K8S_VERSION"
    # The node's binaries (node.sh) come from the same wrapper, so they share its pins.
    go get -tool "k8s.io/kubernetes/cmd/kubelet@$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-scheduler@$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-proxy@$K8S_VERSION"
    go mod tidy)
  m="$here/etcd"
  (cd "$m"; printf 'module sidecar-injector.local/e2e/etcd\n\ngo 1.26.0\n' > go.mod; rm -f go.sum
    go get -tool "go.etcd.io/etcd/server/v3@$ETCD_VERSION"; go mod tidy)
  m="$here/helm"
  (cd "$m"; printf 'module sidecar-injector.local/e2e/helm\n\ngo 1.26.0\n' > go.mod; rm -f go.sum
    go get -tool "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"; go mod tidy)
}

if [ "${1:-}" = "--regen" ]; then regen; fi

build() { go_build_once "$1" "$here/$2" "$3" "$4" "$bin" "e2e build"; }

build etcd etcd go.etcd.io/etcd/server/v3 ""
build helm helm helm.sh/helm/v3/cmd/helm \
  "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$k8s_minor"
build kube-apiserver kubernetes k8s.io/kubernetes/cmd/kube-apiserver "$(stamp_k8s)"
build kube-controller-manager kubernetes k8s.io/kubernetes/cmd/kube-controller-manager "$(stamp_k8s)"
# kubectl of the same minor: the machine's kubectl may be outside the supported version skew.
build kubectl kubernetes k8s.io/kubernetes/cmd/kubectl "$(stamp_k8s)"
echo "$bin"
