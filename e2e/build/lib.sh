# Shared by e2e/build/build.sh, node.sh and istio.sh (sourced, not run).
#
# go_build_once NAME WRAPPER_DIR PACKAGE LDFLAGS BIN_DIR LABEL [TAGS]
#   Builds PACKAGE from the wrapper module WRAPPER_DIR into BIN_DIR/NAME unless it is there,
#   recording the time and peak memory in BIN_DIR/BUILD-TIMES. -mod=readonly: the committed
#   go.sum is the pin; a missing entry is an error, never a silent update.
go_build_once() {
  local name="$1" dir="$2" pkg="$3" ldflags="$4" bin="$5" label="$6" tags="${7:-}" t0 rss=""
  if [ -x "$bin/$name" ]; then return 0; fi
  echo "$label: building $name ($pkg) ... (cold builds take minutes)" >&2
  t0=$(date +%s)
  mkdir -p "$bin"
  local timer=()
  # Peak memory when GNU time is there; the build does not depend on it.
  if [ -x /usr/bin/time ]; then timer=(/usr/bin/time -f "%M" -o "$bin/.$name.maxrss"); fi
  if ! (cd "$dir" && "${timer[@]}" go build -mod=readonly -trimpath -tags "$tags" -ldflags "-s -w $ldflags" -o "$bin/$name.tmp" "$pkg"); then
    echo "$label: building $name failed; is the Go module proxy reachable? (go env GOPROXY: $(go env GOPROXY))" >&2
    exit 1
  fi
  mv "$bin/$name.tmp" "$bin/$name"
  [ -s "$bin/.$name.maxrss" ] && rss=" maxrss_kb=$(cat "$bin/.$name.maxrss")"
  echo "$name $(( $(date +%s) - t0 ))s$rss" >> "$bin/BUILD-TIMES"
  echo "$label: $name done in $(( $(date +%s) - t0 ))s" >&2
}

# regen_tool_wrapper DIR TOOL@VERSION...
#   (--regen, maintainers) Rewrites the wrapper module in DIR (e2e/build/<name>) from scratch: a
#   go.mod that requires the tools as `tool` lines, and the go.sum that pins them.
regen_tool_wrapper() {
  local dir="$1"; shift
  (cd "$dir"
    printf 'module sidecar-injector.local/e2e/%s\n\ngo 1.26.0\n' "$(basename "$dir")" > go.mod; rm -f go.sum
    go get -tool "$@"
    go mod tidy)
}

# The Kubernetes version stamped into a binary (-ldflags), as upstream's release build does:
# `kubectl version` and the kubelet's Node status then report K8S_VERSION (from versions.sh).
stamp_k8s() {
  local v k8s_minor="${K8S_VERSION#v1.}"
  k8s_minor="${k8s_minor%%.*}"
  for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    printf -- '-X %s.gitVersion=%s -X %s.gitMajor=1 -X %s.gitMinor=%s -X %s.gitTreeState=clean ' \
      "$v" "$K8S_VERSION" "$v" "$v" "$k8s_minor" "$v"
  done
}
