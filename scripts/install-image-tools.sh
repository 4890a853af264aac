#!/usr/bin/env bash
# Installs the daemonless container tools the image build and its smoke test use, from Debian:
# umoci (builds the OCI image), skopeo (writes the Docker archive; also pushes) and runc (runs
# the image in the smoke test).
# Needs root or passwordless sudo; does nothing for tools already on PATH.
set -euo pipefail
missing=()
for tool in umoci skopeo runc; do command -v "$tool" >/dev/null || missing+=("$tool"); done
[ ${#missing[@]} -eq 0 ] && exit 0
command -v apt-get >/dev/null || { echo "install-image-tools: no apt-get; install ${missing[*]} with your package manager" >&2; exit 1; }
sudo=()
if [ "$(id -u)" != 0 ]; then
  sudo -n true 2>/dev/null || { echo "install-image-tools: need root or passwordless sudo to apt-get install ${missing[*]}" >&2; exit 1; }
  sudo=(sudo -n)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-image-tools: installed ${missing[*]}" >&2
