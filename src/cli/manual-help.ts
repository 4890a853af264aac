/**
 * @module cli/manual-help
 * The longer `--help` texts of inject, uninject and explain: what is kept byte for byte, what
 * is lost, the KRM function mode and the exit codes, in one place so the three agree.
 */
import { allErrorCodes, errorInfo } from '../errors.js';

const KRM = `
KRM function mode:
  When the input is one config.kubernetes.io/v1 ResourceList (kpt fn eval --exec, kpt fn render,
  kustomize exec transformers), the command acts as a KRM function: it works on the items, keeps
  functionConfig, reports skips (info), warnings (warning) and errors (error) as results, and
  writes the ResourceList to stdout. A functionConfig ConfigMap may carry the injector config in
  data.config (+ data.values, JSON or YAML) and the default namespace in data.namespace; these
  win over --config and --namespace. On any error every item is returned unchanged (exit non-zero).
    kpt fn eval DIR --exec ./inject.sh    # inject.sh: exec sidecar-injector inject -f - (examples/krm-function)
`;

/** The catalogue's codes a manifest command can end with (the webhook's and cluster's cannot). */
const MANUAL_CODE = /^SI_(USAGE|FILE_|INPUT_|TEMPLATE_|CONFIG_|INJECT_|PATCH|INTERNAL)/;

/** The exit-status table, generated from the error catalogue so it cannot miss a status. */
export function exitStatusHelp(): string {
  const rows = allErrorCodes()
    .filter((code) => MANUAL_CODE.test(code))
    .map(errorInfo)
    .sort((a, b) => a.exitCode - b.exitCode);
  const width = Math.max(...rows.map((r) => r.code.length));
  const lines = rows.map((r) => `  ${String(r.exitCode).padStart(2)}  ${r.code.padEnd(width)}  ${r.summary}`);
  return `
Exit status:
   0  success (skipped pods are not errors)
${lines.join('\n')}
  On an error, Error [CODE]: FILE, document N, line L: message is printed and nothing is written.
`;
}

const EXIT = exitStatusHelp();

export const MANUAL_HELP = {
  inject: `
Every pod template is injected as the webhook would (same engine and config), in manual mode:
the policy is forced to enabled and never/always selectors are ignored, as with istioctl
kube-inject; pods with hostNetwork: true or in ignored namespaces are skipped (one line each on
stderr, e.g. skipped Deployment "shop/web" (document 2): ... (host-network)).
Kinds: Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, ReplicationController, Job, CronJob,
DeploymentConfig and v1 List of them. YAML is read as Kubernetes reads it (YAML 1.1: 0644 is 420).
Documents that are not changed are written back byte for byte, comments included. An injected
YAML document is edited in place: the lines the injection adds or changes are new, and every
other line keeps its text, quoting and comments (istioctl kube-inject re-serialises the document
and drops them). A document that cannot be edited in place (a tag or a complex key where the
injection changes it) is re-serialised with its keys in their original order, and the comments
inside it are lost. Injecting again replaces the earlier injection (idempotent); a document
already injected by the same config is left byte for byte.
Warnings from the injector print as "warning: KIND "NS/NAME" (document N): ..."; --quiet hides
them and the skip lines.
-o chooses the format as in kubectl: yaml (the default: the input as written, edited in place)
or json (one object, or a v1 List of several). A value holding "." or "/" is a file to write, as
with istioctl kube-inject -o out.yaml; --output-file FILE says the same for any name.

Examples:
  sidecar-injector inject -f app.yaml | kubectl apply -f -
  sidecar-injector inject -f app.yaml --config examples/log-shipper/config.yaml -o app.injected.yaml
  sidecar-injector inject -f app.yaml -o json | jq '.spec.template.spec.containers[].name'
${KRM}${EXIT}`,
  uninject: `
For each pod template carrying the status annotation, removes the containers, init containers,
volumes and image pull secrets it lists, and the annotation itself. Other documents are written
back byte for byte; changed YAML ones are edited in place, as by inject, so every comment stays
and uninjecting what inject wrote gives back the input byte for byte.

Example:
  sidecar-injector uninject -f app.injected.yaml --output-file app.yaml
${KRM}${EXIT}`,
  explain: `
Two layers are evaluated, as in a cluster:
  1. the webhook configuration: would the apiserver call the injector at all? (namespace label
     <namespaceLabel>=enabled, or the pod label <inject>="true" in an unlabelled namespace; system
     namespaces and the injector's own are excluded; host-network and mirror pods are filtered)
  2. the injector's rules, in webhook mode (the config's policy and selectors apply).
Without --namespace-labels the namespace is assumed to be labelled <namespaceLabel>=enabled, and a
warning tells when an unlabelled namespace would give another answer.
Warnings cover the classic mistakes: the inject label on the Deployment's own metadata instead of
spec.template.metadata; an annotation where the webhook's objectSelector needs a label; values
such as "yes"; the namespace label on a pod; a templates annotation naming an unknown template.
JSON output (-o json) is an array of {document, item?, kind, name, namespace, namespaceLabels,
namespaceLabelsAssumed, reached, via?, injected, reason, message, steps[{layer, check, found,
effect}], warnings}; document numbers start at 1.
Exit status is 0 whatever the verdicts; 2/4/5 for unreadable files, bad config, malformed input.

Example:
  sidecar-injector explain -f app.yaml --namespace-labels istio-injection=enabled
`,
};
