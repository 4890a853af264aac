#!/usr/bin/env bash
# Installs Debian packages that are not installed yet: `apt-install.sh WHAT PACKAGE...` (WHAT names
# the purpose in messages). Needs root or passwordless sudo; exits non-zero with a message saying
# what to install when it cannot, so callers can fall back to skipping what needs the packages.
set -euo pipefail
what=$1
shift
missing=()
for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
[ ${#missing[@]} -eq 0 ] && exit 0
command -v apt-get >/dev/null || { echo "$what: no apt-get; install ${missing[*]} with your package manager" >&2; exit 1; }
sudo=()
if [ "$(id -u)" != 0 ]; then
  sudo -n true 2>/dev/null || { echo "$what: need root or passwordless sudo to apt-get install ${missing[*]}" >&2; exit 1; }
  sudo=(sudo -n)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "$what: installed ${missing[*]}" >&2
