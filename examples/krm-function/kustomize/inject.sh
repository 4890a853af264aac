#!/bin/sh
# KRM exec function: kpt (or kustomize) writes a ResourceList to stdin and reads one back.
# Needs sidecar-injector on PATH: run `npm link` once in the repository (as the README says); add --config PATH here, or
# pass the config as a ConfigMap functionConfig (data.config, data.values, data.namespace).
exec sidecar-injector inject -f - "$@"
