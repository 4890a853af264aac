#!/bin/sh
# KRM exec function: kpt (or kustomize) writes a ResourceList to stdin and reads one back.
# Needs sidecar-injector on PATH: npm run pack && npm install -g ./out/sidecar-injector-0.1.0.tgz in the
# repository (the README's way); add --config PATH here, or
# pass the config as a ConfigMap functionConfig (data.config, data.values, data.namespace).
exec sidecar-injector inject -f - "$@"
