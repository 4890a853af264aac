/**
 * @module e2e/cluster/node-config
 * What the node's daemons are told, as pure functions of its paths: containerd's config, the CNI
 * network, the kubelet's configuration and kubeconfig, and the flags of kube-scheduler and
 * kube-proxy. Every path containerd and the kubelet would otherwise take from a global default
 * (/run/containerd, /var/lib/kubelet, /var/run/netns, /var/log/pods, /var/lib/cni, /etc/cdi,
 * /etc/containerd/certs.d, the NRI and shim sockets) is under the node's directory, or for
 * sockets under NODE.runDir, so `down` finds everything in those two places.
 *
 * The node has fixed host names (one bridge, one cgroup; kube-proxy's chains are global): only
 * one node runs on a machine at a time (node.ts enforces it).
 */
import { join } from 'node:path';

/** The host-side names and addresses of the one node. */
export const NODE = {
  name: 'e2e-node',
  bridge: 'si-e2e0',
  /** The bridge's address: the node's InternalIP, the pods' gateway, and where the apiserver listens. */
  gateway: '10.88.0.1',
  podCidr: '10.88.0.0/24',
  /** The apiserver's --service-cluster-ip-range; 10.0.0.1 is the `kubernetes` Service. */
  serviceCidr: '10.0.0.0/24',
  /** The cgroup (in every hierarchy) the kubelet's pods live under. */
  cgroup: 'si-e2e-node',
  /**
   * Sockets, and the record of which state directory owns the node. Short on purpose: a unix
   * socket path has at most 107 bytes, and containerd names each shim's socket by a 64-character
   * hash, which under the state directory would not fit.
   */
  runDir: '/run/si-e2e-node',
  /** The test images e2e/build/images.sh builds (tar file → the reference it holds). */
  images: {
    'pause.tar': 'e2e.local/pause:1',
    'app.tar': 'e2e.local/app:1',
    'proxy.tar': 'e2e.local/proxy:1',
    'nginx.tar': 'e2e.local/nginx:1.22',
    'busybox.tar': 'e2e.local/busybox:1',
  },
  /**
   * Where every image pull goes (containerd's `_default` registry host): a loopback port where
   * nothing listens, so an image that was not imported fails at once with ErrImagePull, with no
   * DNS query and no packet leaving the machine.
   */
  pullSink: 'http://127.0.0.1:9',
} as const;

export interface NodePaths {
  /** The node's directory (inside the cluster's state directory). */
  dir: string;
  /** bin/ and cni-bin/ of e2e/build/node.sh's cache. */
  bin: string;
  cniBin: string;
  runc: string;
}

export const nodeFile = (p: NodePaths, ...parts: string[]): string => join(p.dir, ...parts);
export const containerdSocket = (): string => join(NODE.runDir, 'containerd.sock');

/** containerd's hosts.toml for every registry (certs.d/_default). */
export function registryHostsToml(): string {
  return `# Every registry: pulls fail here, on loopback (e2e/cluster/node-config.ts).\nserver = '${NODE.pullSink}'\n`;
}

export function containerdConfig(p: NodePaths): string {
  const c = (...parts: string[]): string => nodeFile(p, 'containerd', ...parts);
  return `version = 3
root = '${c('root')}'
state = '${c('state')}'
imports = []
[grpc]
  address = '${containerdSocket()}'
[ttrpc]
  address = '${containerdSocket()}.ttrpc'
[plugins]
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = 'overlayfs'
    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = '${NODE.images['pause.tar']}'
    [plugins.'io.containerd.cri.v1.images'.registry]
      config_path = '${c('certs.d')}'
  [plugins.'io.containerd.cri.v1.runtime']
    disable_apparmor = true
    # No CAP_SYS_RESOURCE here: the pause container's oom_score_adj -998 would make runc fail.
    restrict_oom_score_adj = true
    netns_mounts_under_state_dir = true
    enable_cdi = false
    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = 'runc'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
        runtime_type = 'io.containerd.runc.v2'
        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
          BinaryName = '${p.runc}'
          Root = '${c('runc')}'
          SystemdCgroup = false
    [plugins.'io.containerd.cri.v1.runtime'.cni]
      bin_dirs = ['${p.cniBin}']
      conf_dir = '${nodeFile(p, 'cni-conf')}'
      max_conf_num = 1
  [plugins.'io.containerd.grpc.v1.cri']
    stream_server_address = '127.0.0.1'
    stream_server_port = '0'
  [plugins.'io.containerd.internal.v1.opt']
    path = '${c('opt')}'
  [plugins.'io.containerd.nri.v1.nri']
    disable = true
  [plugins.'io.containerd.shim.v1.manager']
    socket_dir = '${join(NODE.runDir, 's')}'
`;
}

/** bridge + host-local on our own bridge; no masquerade (pods have no way off the machine). */
export function cniConflist(p: NodePaths): string {
  return `${JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: 'si-e2e',
      plugins: [
        {
          type: 'bridge',
          bridge: NODE.bridge,
          isGateway: true,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            dataDir: nodeFile(p, 'cni-ipam'),
            ranges: [[{ subnet: NODE.podCidr, gateway: NODE.gateway }]],
            routes: [{ dst: '0.0.0.0/0' }],
          },
        },
      ],
    },
    null,
    2,
  )}\n`;
}

export interface KubeletPki {
  caCert: string;
  cert: string;
  key: string;
}

export function kubeletKubeconfig(server: string, pki: KubeletPki): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    `clusters: [{name: e2e, cluster: {server: '${server}', certificate-authority: '${pki.caCert}'}}]`,
    `users: [{name: kubelet, user: {client-certificate: '${pki.cert}', client-key: '${pki.key}'}}]`,
    'contexts: [{name: e2e, context: {cluster: e2e, user: kubelet}}]',
    'current-context: e2e',
    '',
  ].join('\n');
}

export function kubeletConfig(p: NodePaths, caCert: string): string {
  return [
    'apiVersion: kubelet.config.k8s.io/v1beta1',
    'kind: KubeletConfiguration',
    `address: ${NODE.gateway}`,
    'port: 10250',
    'readOnlyPort: 0',
    'healthzBindAddress: 127.0.0.1',
    'healthzPort: 10248',
    // Only holders of a certificate from the cluster CA (the apiserver) may call the kubelet.
    `authentication: {anonymous: {enabled: false}, webhook: {enabled: false}, x509: {clientCAFile: '${caCert}'}}`,
    'authorization: {mode: AlwaysAllow}',
    // This machine has a cgroup v1 (hybrid) hierarchy, which kubelet 1.36 refuses by default.
    'cgroupDriver: cgroupfs',
    `cgroupRoot: /${NODE.cgroup}`,
    'failCgroupV1: false',
    'failSwapOn: false',
    `containerRuntimeEndpoint: unix://${containerdSocket()}`,
    `podLogsDir: ${nodeFile(p, 'pod-logs')}`,
    // No cluster DNS and no host resolver: a pod has no name server to ask (containment).
    `resolvConf: ${nodeFile(p, 'resolv.conf')}`,
    'clusterDomain: cluster.local',
    'serializeImagePulls: false',
    'imageGCHighThresholdPercent: 100',
    'imageGCLowThresholdPercent: 99',
    'evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}',
    // Quick feedback for the suite: status changes reach the apiserver sooner.
    'nodeStatusUpdateFrequency: 4s',
    'syncFrequency: 10s',
    '',
  ].join('\n');
}

export function kubeletArgs(p: NodePaths): string[] {
  return [
    `--config=${nodeFile(p, 'kubelet-config.yaml')}`,
    `--kubeconfig=${nodeFile(p, 'kubelet.kubeconfig')}`,
    `--root-dir=${nodeFile(p, 'kubelet')}`,
    `--cert-dir=${nodeFile(p, 'kubelet', 'pki')}`,
    `--hostname-override=${NODE.name}`,
    `--node-ip=${NODE.gateway}`,
    '--v=1',
  ];
}

export function schedulerArgs(kubeconfig: string, port: number): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
  ];
}

/** kube-proxy in iptables mode, changing no sysctl (conntrack limits left alone). */
export function kubeProxyArgs(kubeconfig: string, ports: { metrics: number; healthz: number }): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--hostname-override=${NODE.name}`,
    '--proxy-mode=iptables',
    `--cluster-cidr=${NODE.podCidr}`,
    `--nodeport-addresses=${NODE.gateway}/32`,
    '--iptables-localhost-nodeports=false',
    '--conntrack-max-per-core=0',
    '--conntrack-tcp-timeout-established=0',
    '--conntrack-tcp-timeout-close-wait=0',
    `--metrics-bind-address=127.0.0.1:${ports.metrics}`,
    `--healthz-bind-address=127.0.0.1:${ports.healthz}`,
  ];
}
