# The pinned versions of everything e2e/build/ builds (sourced by build.sh and node.sh, not run).
# Each cache directory's name is derived from the pins of what it holds, so changing a pin builds
# into a new directory and never mixes versions.
K8S_VERSION=v1.36.3
STAGING_VERSION=v0.36.3
ETCD_VERSION=v3.6.16
HELM_VERSION=v3.22.0
# The node (node.sh): kubelet, kube-scheduler and kube-proxy come from K8S_VERSION above.
CONTAINERD_VERSION=v2.4.2
CNI_PLUGINS_VERSION=v1.10.0
