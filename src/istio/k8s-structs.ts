/**
 * @module istio/k8s-structs
 * Schemas of the corev1/metav1 Go structs that injection templates read (field order as in
 * k8s.io/api v0.30+), for the struct views in go-struct.ts (which imports this list: no
 * registration by side effect). Types not listed here are still reachable through a generic
 * view; list a type here when templates need Go's zero values for its absent fields.
 */

/** A field: Go name, JSON name, Go type (`string`, `int32`, `[]v1.Container`, `*v1.Probe`, `map[string]string`). */
export type FieldSpec = readonly [goName: string, jsonName: string, goType: string];

export interface StructSchema {
  /** reflect's name, e.g. `v1.Container`. */
  readonly goType: string;
  readonly fields: readonly FieldSpec[];
}

const structs: StructSchema[] = [];

function defineStruct(goType: string, fields: readonly FieldSpec[]): void {
  structs.push({ goType, fields });
}

/** [GoName, jsonName, goType]; jsonName defaults to GoName with a lower-case first letter. */
export function f(goName: string, goType: string, jsonName?: string): FieldSpec {
  return [goName, jsonName ?? goName.charAt(0).toLowerCase() + goName.slice(1), goType];
}

defineStruct('v1.TypeMeta', [f('Kind', 'string'), f('APIVersion', 'string', 'apiVersion')]);

/** Istio's `.DeploymentMeta` (k8s.io/apimachinery types.NamespacedName). */
defineStruct('types.NamespacedName', [f('Namespace', 'string'), f('Name', 'string')]);

defineStruct('v1.ObjectMeta', [
  f('Name', 'string'),
  f('GenerateName', 'string'),
  f('Namespace', 'string'),
  f('SelfLink', 'string'),
  f('UID', 'string', 'uid'),
  f('ResourceVersion', 'string'),
  f('Generation', 'int64'),
  f('CreationTimestamp', 'string'),
  f('DeletionTimestamp', '*string'),
  f('DeletionGracePeriodSeconds', '*int64'),
  f('Labels', 'map[string]string'),
  f('Annotations', 'map[string]string'),
  f('OwnerReferences', '[]v1.OwnerReference'),
  f('Finalizers', '[]string'),
  f('ManagedFields', '[]interface {}'),
]);

defineStruct('v1.OwnerReference', [
  f('APIVersion', 'string', 'apiVersion'),
  f('Kind', 'string'),
  f('Name', 'string'),
  f('UID', 'string', 'uid'),
  f('Controller', '*bool'),
  f('BlockOwnerDeletion', '*bool'),
]);

defineStruct('v1.PodSpec', [
  f('Volumes', '[]v1.Volume'),
  f('InitContainers', '[]v1.Container'),
  f('Containers', '[]v1.Container'),
  f('EphemeralContainers', '[]v1.EphemeralContainer'),
  f('RestartPolicy', 'string'),
  f('TerminationGracePeriodSeconds', '*int64'),
  f('ActiveDeadlineSeconds', '*int64'),
  f('DNSPolicy', 'string', 'dnsPolicy'),
  f('NodeSelector', 'map[string]string'),
  f('ServiceAccountName', 'string'),
  f('DeprecatedServiceAccount', 'string', 'serviceAccount'),
  f('AutomountServiceAccountToken', '*bool'),
  f('NodeName', 'string'),
  f('HostNetwork', 'bool'),
  f('HostPID', 'bool', 'hostPID'),
  f('HostIPC', 'bool', 'hostIPC'),
  f('ShareProcessNamespace', '*bool'),
  f('SecurityContext', '*v1.PodSecurityContext'),
  f('ImagePullSecrets', '[]v1.LocalObjectReference'),
  f('Hostname', 'string'),
  f('Subdomain', 'string'),
  f('Affinity', '*v1.Affinity'),
  f('SchedulerName', 'string'),
  f('Tolerations', '[]v1.Toleration'),
  f('HostAliases', '[]v1.HostAlias'),
  f('PriorityClassName', 'string'),
  f('Priority', '*int32'),
  f('DNSConfig', '*v1.PodDNSConfig', 'dnsConfig'),
  f('ReadinessGates', '[]v1.PodReadinessGate'),
  f('RuntimeClassName', '*string'),
  f('EnableServiceLinks', '*bool'),
  f('PreemptionPolicy', '*string'),
  f('Overhead', 'map[string]resource.Quantity'),
  f('TopologySpreadConstraints', '[]v1.TopologySpreadConstraint'),
  f('SetHostnameAsFQDN', '*bool', 'setHostnameAsFQDN'),
  f('OS', '*v1.PodOS', 'os'),
  f('HostUsers', '*bool', 'hostUsers'),
  f('SchedulingGates', '[]v1.PodSchedulingGate'),
  f('ResourceClaims', '[]v1.PodResourceClaim'),
]);

const CONTAINER_FIELDS: FieldSpec[] = [
  f('Name', 'string'),
  f('Image', 'string'),
  f('Command', '[]string'),
  f('Args', '[]string'),
  f('WorkingDir', 'string'),
  f('Ports', '[]v1.ContainerPort'),
  f('EnvFrom', '[]v1.EnvFromSource'),
  f('Env', '[]v1.EnvVar'),
  f('Resources', 'v1.ResourceRequirements'),
  f('ResizePolicy', '[]v1.ContainerResizePolicy'),
  f('RestartPolicy', '*string'),
  f('VolumeMounts', '[]v1.VolumeMount'),
  f('VolumeDevices', '[]v1.VolumeDevice'),
  f('LivenessProbe', '*v1.Probe'),
  f('ReadinessProbe', '*v1.Probe'),
  f('StartupProbe', '*v1.Probe'),
  f('Lifecycle', '*v1.Lifecycle'),
  f('TerminationMessagePath', 'string'),
  f('TerminationMessagePolicy', 'string'),
  f('ImagePullPolicy', 'string'),
  f('SecurityContext', '*v1.SecurityContext'),
  f('Stdin', 'bool'),
  f('StdinOnce', 'bool'),
  f('TTY', 'bool', 'tty'),
];
defineStruct('v1.Container', CONTAINER_FIELDS);
defineStruct('v1.EphemeralContainer', [...CONTAINER_FIELDS, f('TargetContainerName', 'string')]);

defineStruct('v1.ContainerPort', [
  f('Name', 'string'),
  f('HostPort', 'int32'),
  f('ContainerPort', 'int32'),
  f('Protocol', 'string'),
  f('HostIP', 'string', 'hostIP'),
]);

defineStruct('v1.EnvVar', [f('Name', 'string'), f('Value', 'string'), f('ValueFrom', '*v1.EnvVarSource')]);

defineStruct('v1.VolumeMount', [
  f('Name', 'string'),
  f('ReadOnly', 'bool'),
  f('RecursiveReadOnly', '*string'),
  f('MountPath', 'string'),
  f('SubPath', 'string'),
  f('MountPropagation', '*string'),
  f('SubPathExpr', 'string'),
]);

defineStruct('v1.ResourceRequirements', [
  f('Limits', 'map[string]resource.Quantity'),
  f('Requests', 'map[string]resource.Quantity'),
  f('Claims', '[]v1.ResourceClaim'),
]);

defineStruct('v1.SecurityContext', [
  f('Capabilities', '*v1.Capabilities'),
  f('Privileged', '*bool'),
  f('SELinuxOptions', '*v1.SELinuxOptions', 'seLinuxOptions'),
  f('WindowsOptions', '*v1.WindowsSecurityContextOptions'),
  f('RunAsUser', '*int64'),
  f('RunAsGroup', '*int64'),
  f('RunAsNonRoot', '*bool'),
  f('ReadOnlyRootFilesystem', '*bool'),
  f('AllowPrivilegeEscalation', '*bool'),
  f('ProcMount', '*string'),
  f('SeccompProfile', '*v1.SeccompProfile'),
  f('AppArmorProfile', '*v1.AppArmorProfile'),
]);

defineStruct('v1.PodSecurityContext', [
  f('SELinuxOptions', '*v1.SELinuxOptions', 'seLinuxOptions'),
  f('WindowsOptions', '*v1.WindowsSecurityContextOptions'),
  f('RunAsUser', '*int64'),
  f('RunAsGroup', '*int64'),
  f('RunAsNonRoot', '*bool'),
  f('SupplementalGroups', '[]int64'),
  f('SupplementalGroupsPolicy', '*string'),
  f('FSGroup', '*int64', 'fsGroup'),
  f('Sysctls', '[]v1.Sysctl'),
  f('FSGroupChangePolicy', '*string', 'fsGroupChangePolicy'),
  f('SeccompProfile', '*v1.SeccompProfile'),
  f('AppArmorProfile', '*v1.AppArmorProfile'),
]);

defineStruct('v1.Capabilities', [f('Add', '[]string'), f('Drop', '[]string')]);

// Probe embeds ProbeHandler in Go; its fields are promoted, and JSON is flat, so list them inline.
defineStruct('v1.Probe', [
  f('Exec', '*v1.ExecAction'),
  f('HTTPGet', '*v1.HTTPGetAction', 'httpGet'),
  f('TCPSocket', '*v1.TCPSocketAction', 'tcpSocket'),
  f('GRPC', '*v1.GRPCAction', 'grpc'),
  f('InitialDelaySeconds', 'int32'),
  f('TimeoutSeconds', 'int32'),
  f('PeriodSeconds', 'int32'),
  f('SuccessThreshold', 'int32'),
  f('FailureThreshold', 'int32'),
  f('TerminationGracePeriodSeconds', '*int64'),
]);

defineStruct('v1.ExecAction', [f('Command', '[]string')]);
defineStruct('v1.HTTPGetAction', [
  f('Path', 'string'),
  f('Port', 'intstr.IntOrString'),
  f('Host', 'string'),
  f('Scheme', 'string'),
  f('HTTPHeaders', '[]v1.HTTPHeader', 'httpHeaders'),
]);
defineStruct('v1.HTTPHeader', [f('Name', 'string'), f('Value', 'string')]);
defineStruct('v1.TCPSocketAction', [f('Port', 'intstr.IntOrString'), f('Host', 'string')]);
defineStruct('v1.GRPCAction', [f('Port', 'int32'), f('Service', '*string')]);

defineStruct('v1.Lifecycle', [f('PostStart', '*v1.LifecycleHandler'), f('PreStop', '*v1.LifecycleHandler'), f('StopSignal', '*string')]);
defineStruct('v1.LifecycleHandler', [
  f('Exec', '*v1.ExecAction'),
  f('HTTPGet', '*v1.HTTPGetAction', 'httpGet'),
  f('TCPSocket', '*v1.TCPSocketAction', 'tcpSocket'),
  f('Sleep', '*v1.SleepAction'),
]);

defineStruct('v1.SeccompProfile', [f('Type', 'string'), f('LocalhostProfile', '*string')]);
defineStruct('v1.LocalObjectReference', [f('Name', 'string')]);
defineStruct('v1.HostAlias', [f('IP', 'string', 'ip'), f('Hostnames', '[]string')]);
defineStruct('v1.Toleration', [f('Key', 'string'), f('Operator', 'string'), f('Value', 'string'), f('Effect', 'string'), f('TolerationSeconds', '*int64')]);

// Volume embeds VolumeSource: every source is a pointer field of the volume itself.
defineStruct('v1.Volume', [
  f('Name', 'string'),
  ...[
    'HostPath',
    'EmptyDir',
    'GCEPersistentDisk',
    'AWSElasticBlockStore',
    'GitRepo',
    'Secret',
    'NFS',
    'ISCSI',
    'Glusterfs',
    'PersistentVolumeClaim',
    'RBD',
    'FlexVolume',
    'Cinder',
    'CephFS',
    'Flocker',
    'DownwardAPI',
    'FC',
    'AzureFile',
    'ConfigMap',
    'VsphereVolume',
    'Quobyte',
    'AzureDisk',
    'PhotonPersistentDisk',
    'Projected',
    'PortworxVolume',
    'ScaleIO',
    'StorageOS',
    'CSI',
    'Ephemeral',
    'Image',
  ].map((name) => {
    const json = {
      NFS: 'nfs',
      ISCSI: 'iscsi',
      RBD: 'rbd',
      CephFS: 'cephfs',
      FC: 'fc',
      CSI: 'csi',
      GCEPersistentDisk: 'gcePersistentDisk',
      AWSElasticBlockStore: 'awsElasticBlockStore',
      ScaleIO: 'scaleIO',
      StorageOS: 'storageos',
    }[name];
    return f(name, `*v1.${name}VolumeSource`, json);
  }),
]);

/** Every schema above, in definition order. */
export const K8S_STRUCTS: readonly StructSchema[] = structs;
