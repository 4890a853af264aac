#!/usr/bin/env bash
# Builds the e2e suite's test images with no registry and no daemon, as Docker archives that the
# node's containerd imports (`ctr -n k8s.io images import`), into a cache outside the repository
# keyed by a hash of their inputs (a second run only checks the files):
#   app.tar     e2e.local/app:1      the static Go program of e2e/images/app, entrypoint `app serve`
#   proxy.tar   e2e.local/proxy:1    the same program as a sidecar, entrypoint `app` (`proxy sidecar`,
#                                    the argument shape of Istio's proxyv2 that defaults/config.yaml writes)
#   pause.tar   e2e.local/pause:1    the same program as the sandbox's pause process
#   nginx.tar   e2e.local/nginx:1.22 Debian's nginx (`apt-get download`, no install) with the shared
#                                    libraries it links, for examples/nginx-sidecar
#   busybox.tar e2e.local/busybox:1  Debian's busybox-static: a shell and the usual tools
# Packed with umoci (unpack + repack: umoci 0.4.7's `insert` writes a truncated tar) and written as
# Docker archives by skopeo.
#
#   e2e/build/images.sh              build what is missing, print the cache directory last
#   e2e/build/images.sh --print-dir  print the cache directory only (needs apt-cache for the key)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
src="$here/../images/app"
die() { echo "e2e images: $*" >&2; exit 1; }
[ -x /bin/busybox ] || die "/bin/busybox is missing: apt-get install busybox-static"
for tool in go umoci skopeo apt-get dpkg-deb ldd; do command -v "$tool" >/dev/null || die "$tool is not installed (scripts/install-image-tools.sh installs umoci and skopeo)"; done
nginx_version="$(apt-cache policy nginx | awk '/Candidate:/ {print $2}')"
if { [ -z "$nginx_version" ] || [ "$nginx_version" = "(none)" ]; } && [ "$(id -u)" = 0 ]; then
  apt-get update -qq >/dev/null # a fresh machine may have no package lists yet
  nginx_version="$(apt-cache policy nginx | awk '/Candidate:/ {print $2}')"
fi
[ -n "$nginx_version" ] && [ "$nginx_version" != "(none)" ] || die "apt-cache knows no nginx package: run apt-get update"
key="$( (cat "$src/main.go" "$src/go.mod" "$0" /bin/busybox; go version; echo "$nginx_version") | sha256sum | cut -c1-16)"
dir="${SIDECAR_INJECTOR_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sidecar-injector}/e2e/images-$key"
if [ "${1:-}" = "--print-dir" ]; then echo "$dir"; exit 0; fi
if [ -f "$dir/busybox.tar" ]; then echo "$dir"; exit 0; fi

t0=$(date +%s)
work="$dir/work"
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

# One layer per image, made from a rootfs directory: umoci new + unpack (empty) + copy + repack.
layout="$work/oci"
umoci init --layout "$layout"
pack() { # pack TAG ROOTFS_FILLER...: the filler is a command run with the rootfs directory as $1
  local tag=$1; shift
  umoci new --image "$layout:$tag"
  umoci unpack --image "$layout:$tag" "$work/bundle-$tag" >/dev/null
  "$@" "$work/bundle-$tag/rootfs"
  umoci repack --image "$layout:$tag" "$work/bundle-$tag"
  rm -rf "$work/bundle-$tag"
}
config() { # config TAG NEWTAG ARGS...: umoci config with the platform set
  local tag=$1 new=$2; shift 2
  umoci config --image "$layout:$tag" --tag "$new" --os linux --architecture amd64 "$@"
}
archive() { # archive TAG FILE NAME
  rm -f "$dir/$2"
  skopeo copy -q "oci:$layout:$1" "docker-archive:$dir/$2.tmp:$3"
  mv "$dir/$2.tmp" "$dir/$2"
}

# 1. the Go program, static, in three images
(cd "$src" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -mod=readonly -trimpath -ldflags '-s -w' -o "$work/app" .)
fill_app() { install -D -m 0755 "$work/app" "$1/app"; }
pack app fill_app
config app app-serve --config.entrypoint /app --config.cmd serve
config app app-proxy --config.entrypoint /app --config.cmd proxy --config.cmd sidecar
config app app-pause --config.entrypoint /app --config.cmd pause
archive app-serve app.tar e2e.local/app:1
archive app-proxy proxy.tar e2e.local/proxy:1
archive app-pause pause.tar e2e.local/pause:1

# 2. nginx from Debian's package, with the libraries `ldd` names (from this machine's glibc)
(cd "$work" && apt-get download -q "nginx=$nginx_version" >/dev/null 2>&1) || die "apt-get download nginx=$nginx_version failed (is Debian's archive reachable?)"
dpkg-deb -x "$work"/nginx_*.deb "$work/nginx-deb"
fill_nginx() {
  local root=$1 lib
  install -D -m 0755 "$work/nginx-deb/usr/sbin/nginx" "$root/usr/sbin/nginx"
  for lib in $(ldd "$work/nginx-deb/usr/sbin/nginx" | awk '$2 == "=>" {print $3} $1 ~ /^\// {print $1}'); do
    install -D -m 0755 "$(readlink -f "$lib")" "$root$lib"
  done
  # The user and group nginx switches its workers to, and the directories it writes to.
  mkdir -p "$root/etc" "$root/var/log/nginx" "$root/var/lib/nginx" "$root/tmp"
  chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' > "$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
}
pack nginx fill_nginx
# As the official image: nginx in the foreground, configured by /etc/nginx/nginx.conf.
config nginx nginx-run --config.entrypoint /usr/sbin/nginx --config.cmd -g --config.cmd 'daemon off;' --config.cmd -e --config.cmd stderr
archive nginx-run nginx.tar e2e.local/nginx:1.22

# 3. busybox: the static binary and one link per applet it has
fill_busybox() {
  install -D -m 0755 /bin/busybox "$1/bin/busybox"
  local applet
  for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -s busybox "$1/bin/$applet"; done
  mkdir -p "$1/tmp" && chmod 1777 "$1/tmp"
}
pack busybox fill_busybox
config busybox busybox-run --config.env PATH=/bin --config.cmd sh
archive busybox-run busybox.tar e2e.local/busybox:1

echo "images $(( $(date +%s) - t0 ))s (nginx $nginx_version)" >> "$dir/BUILD-TIMES"
echo "e2e images: built in $(( $(date +%s) - t0 ))s into $dir" >&2
echo "$dir"
