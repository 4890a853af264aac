#!/usr/bin/env bash
# Installs the daemonless container tools the image build and its smoke test use, from Debian:
# umoci (builds the OCI image), skopeo (writes the Docker archive; also pushes) and runc (runs
# the image in the smoke test). Does nothing for tools already on PATH.
set -euo pipefail
missing=()
for tool in umoci skopeo runc; do command -v "$tool" >/dev/null || missing+=("$tool"); done
[ ${#missing[@]} -eq 0 ] && exit 0
exec "$(dirname "$0")/apt-install.sh" install-image-tools "${missing[@]}"
