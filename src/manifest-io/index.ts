/**
 * @module manifest-io
 * Manifest input/output for the CLI (`inject -f`, `uninject`, `explain`) and the KRM function
 * mode: read multi-document YAML/JSON as kubectl reads it, find pod templates in workloads, and
 * write the stream back with untouched documents byte for byte.
 *
 * Names: a manifest is a file of Kubernetes objects. This module reads and writes them;
 * manual-inject/ injects into them; install/ generates the install manifests (the `manifests`
 * command, cli/install-manifests.ts); yaml/ is the YAML underneath. "Template" alone means a Go
 * template (template/); a workload's pod template is a pod template (manual-inject/pod-templates).
 */
export { readManifest, type ManifestDocument, type ReadOptions } from './documents.js';
export { writeManifest, replaceDocument, documentText } from './write.js';
export {
  podTemplates,
  withPodTemplate,
  workloadKind,
  isList,
  apiGroup,
  WORKLOAD_KINDS,
  type PodTemplateRef,
  type WorkloadRef,
  type WorkloadKind,
  type JsonPath,
} from './workload-kinds.js';
export {
  findResourceList,
  readResourceList,
  writeResourceList,
  resultFor,
  krmExitCode,
  isResourceList,
  type ResourceList,
  type KrmResult,
  type KrmSeverity,
} from './krm-io.js';
