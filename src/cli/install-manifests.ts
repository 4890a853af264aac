/**
 * @module cli/install-manifests
 * `sidecar-injector manifests`: print (or write with -o) one multi-document YAML that installs
 * the webhook with `kubectl apply -f`. Flags map one to one onto `InstallOptions` and onto the
 * Helm chart's values; the work is in `install/`. Notes (where the CA went, risky settings) go
 * to stderr so stdout stays pure YAML.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { durationFlag } from './duration-flag.js';
import { oneOf } from './choices.js';
import type { CertMode, InstallRequest } from '../install/index.js';
import { ON_ERROR_MODES, type OnError } from '../admission/server-defaults.js';
import { DEFAULT_MONITORING_PORT, DEFAULT_NAME, DEFAULT_TIMEOUT_SECONDS, DEFAULT_WEBHOOK_PORT, defaultImage, packageVersion } from '../install/options.js';
import { InjectorError } from '../errors.js';
import type { CliIO } from './io.js';
import { formatOption, outputFileOption, writeStream, type DataFormat } from './output.js';

interface ManifestsFlags {
  namespace: string;
  name: string;
  config?: string;
  image?: string;
  imagePullPolicy: 'Always' | 'IfNotPresent' | 'Never';
  replicas: number;
  failurePolicy: 'Fail' | 'Ignore';
  timeoutSeconds: number;
  reinvocationPolicy: 'IfNeeded' | 'Never';
  onError?: OnError;
  enableNamespacesByDefault?: boolean;
  matchConditions: boolean;
  excludeNamespace?: string[];
  certs: boolean;
  certManager?: boolean;
  existingSecret?: string;
  tlsCaValidity?: string;
  tlsCertValidity?: string;
  caFile?: string;
  certsDir?: string;
  clusterDomain: string;
  caBundleReconcile: boolean;
  reconcile?: boolean;
  reconcileRestart?: boolean;
  priorityClassName?: string;
  port: number;
  monitoringPort: number;
  logLevel: string;
  drainDelay: number;
  namespaceObject?: boolean;
  revision?: string;
  tag?: string[];
  webhookUrl?: string;
  output?: DataFormat;
  outputFile?: string;
  prometheusRule?: boolean;
  serviceMonitor?: boolean;
  monitoringLabel?: Record<string, string>;
}

function integer(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    return n;
  };
}

function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('expected KEY=VALUE');
  return { ...previous, [value.slice(0, eq)]: value.slice(eq + 1) };
}

export function register(program: Command, io: CliIO): void {
  program
    .command('manifests')
    .description(
      'print the YAML that installs the webhook (Namespace, RBAC, ConfigMap, TLS Secret, Deployment, PDB, Service, MutatingWebhookConfiguration); apply with kubectl apply -f. By default the server makes and renews its own certificate',
    )
    .option('-n, --namespace <namespace>', 'namespace of the injector (excluded from injection)', DEFAULT_NAME)
    .option('--name <name>', 'name of the Deployment, Service, ConfigMap, RBAC and MutatingWebhookConfiguration', DEFAULT_NAME)
    .option(
      '-c, --config <path>',
      'injector config to ship in the ConfigMap: a directory with "config" and "values", one YAML file, or a ConfigMap manifest (default: built-in)',
    )
    .option('--image <image>', `server image (default: ${defaultImage()})`)
    .option(
      '--image-pull-policy <policy>',
      'Always, IfNotPresent or Never',
      oneOf<'Always' | 'IfNotPresent' | 'Never'>('Always', 'IfNotPresent', 'Never'),
      'IfNotPresent',
    )
    .option('--replicas <n>', 'server replicas (2+ for a PodDisruptionBudget)', integer(1, 100), 2)
    .option(
      '--failure-policy <policy>',
      'Fail: opted-in pods wait while the webhook is down; Ignore: they start without the sidecar',
      oneOf('Fail', 'Ignore'),
      'Fail',
    )
    .option('--timeout-seconds <n>', 'webhook timeout (1-30)', integer(1, 30), DEFAULT_TIMEOUT_SECONDS)
    .option('--reinvocation-policy <policy>', 'IfNeeded (call again if a later webhook changed the pod) or Never', oneOf('IfNeeded', 'Never'), 'IfNeeded')
    .option('--on-error <mode>', 'server answer when injection fails: deny or allow (default: deny with Fail, allow with Ignore)', oneOf(...ON_ERROR_MODES))
    .option('--enable-namespaces-by-default', "also inject pods in namespaces without the injection label (Istio's enableNamespacesByDefault)")
    .option('--no-match-conditions', 'omit the CEL matchConditions (skip mirror and hostNetwork pods); for Kubernetes before 1.28')
    .option('--exclude-namespace <namespace...>', 'more namespaces the webhook never sees')
    .option(
      '--existing-secret <name>',
      'serve your own certificate from this Secret (tls.crt, tls.key, ca.crt), read through the API: until it exists the server is not ready and says why; caBundle from --ca-file or filled by the server',
    )
    .option('--no-certs', 'the same as --existing-secret <name>-tls')
    .option('--cert-manager', 'let cert-manager issue <name>-tls and inject the caBundle (writes an Issuer and a Certificate)')
    .option('--ca-file <file>', 'with --existing-secret or --no-certs: the CA that signed your certificate, for the caBundle')
    .option(
      '--certs-dir <dir>',
      "generate the certificate here instead of letting the server make its own: reuse the CA and certificate in DIR (ca.crt, ca.key, tls.crt, tls.key; the certs command's layout), creating them if absent, so reruns keep the caBundle",
    )
    .option(
      '--tls-ca-validity <lifetime>',
      "self-provisioned certificates (the default): lifetime of the CA, whole days or a Go duration, e.g. 3650d (serve's default), 2160h, 12h30m",
    )
    .option(
      '--tls-cert-validity <lifetime>',
      "self-provisioned certificates: lifetime of the serving certificate, e.g. 90d (serve's default); renewed at two thirds",
    )
    .option('--cluster-domain <domain>', 'cluster DNS domain for the certificate', 'cluster.local')
    .option('--no-ca-bundle-reconcile', 'do not run the caBundle reconciler (no --webhook-config, no ClusterRole)')
    .option(
      '--reconcile',
      'run serve --reconcile (self-healing: sidecar_injector_pods metrics and Events on workloads with stale or missing sidecars) with its least-privilege RBAC',
    )
    .option('--reconcile-restart', 'also let it restart those workloads (implies --reconcile; adds get/patch on Deployments, StatefulSets, DaemonSets)')
    .option('--priority-class-name <name>', 'priorityClassName for the server pods (e.g. system-cluster-critical)')
    .option('--port <n>', 'container HTTPS port (unprivileged)', integer(1024, 65535), DEFAULT_WEBHOOK_PORT)
    .option('--monitoring-port <n>', 'container port for /metrics, /healthz, /readyz over HTTP', integer(1024, 65535), DEFAULT_MONITORING_PORT)
    .option('--log-level <level>', 'server log level', 'info')
    .addOption(
      new Option('--drain-delay <duration>', 'how long the server keeps serving, not ready, after SIGTERM (whole seconds, at most 1m)')
        .argParser(durationFlag({ maxMs: 60_000, wholeSeconds: true }))
        .default(5000, '5s'),
    )
    .option('--namespace-object', 'write the Namespace object (the default, except with --revision: the revisions share the namespace)')
    .option('--no-namespace-object', 'omit the Namespace object (it exists already; label it yourself)')
    .option(
      '--revision <name>',
      "install a revisioned injector beside the default one (Istio's revisions): objects named <name>-<revision>, a webhook that selects only namespaces and pods labelled <revisionLabel>=<revision> (istio.io/rev by default); move namespaces to it with `rollout`",
    )
    .option(
      '--tag <tag...>',
      'revision tags pointing at this install (Istio\'s istio-revision-tag-<tag>): one webhook configuration <name>-revision-tag-<tag> each, selecting <revisionLabel>=<tag>; the tag "default" also takes over the default selectors (remove the default install\'s webhook configuration first)',
    )
    .option(
      '--webhook-url <url>',
      "URL mode: the server runs outside the cluster (e.g. serve on your laptop against a dev cluster) at this https base URL; writes only the MutatingWebhookConfiguration, calling <url>/inject, with a certificate for the URL's host (use --certs-dir and serve --tls-dir DIR)",
    )
    .option('--prometheus-rule', "also write a prometheus-operator PrometheusRule with the alerts (runbooks: docs/runbooks.md); needs the operator's CRDs")
    .option('--service-monitor', "also write a prometheus-operator ServiceMonitor scraping /metrics on the monitoring port; needs the operator's CRDs")
    .option(
      '--monitoring-label <key=value>',
      'a label for the PrometheusRule and ServiceMonitor, e.g. release=kube-prometheus-stack so your Prometheus selects them (repeatable)',
      keyValue,
    )
    .addOption(formatOption(['yaml', 'json'] as const, undefined, 'default yaml, or as --output-file FILE.json/.yaml names it; json: a v1 List'))
    .addOption(outputFileOption())
    .action(async (flags: ManifestsFlags) => runManifests(io, flags));
}

async function runManifests(io: CliIO, flags: ManifestsFlags): Promise<void> {
  if (flags.certManager && (!flags.certs || flags.existingSecret !== undefined))
    throw new InjectorError('SI_USAGE', 'use either --cert-manager or your own Secret (--no-certs, --existing-secret), not both');
  // Unset: self-provisioned, or generated with --certs-dir and in URL mode (install/options decides).
  const certMode: CertMode | undefined = flags.certManager ? 'cert-manager' : !flags.certs || flags.existingSecret !== undefined ? 'none' : undefined;
  const request: InstallRequest = {
    name: flags.name,
    namespace: flags.namespace,
    config: flags.config,
    image: flags.image,
    imagePullPolicy: flags.imagePullPolicy,
    replicas: flags.replicas,
    failurePolicy: flags.failurePolicy,
    timeoutSeconds: flags.timeoutSeconds,
    reinvocationPolicy: flags.reinvocationPolicy,
    onError: flags.onError,
    enableNamespacesByDefault: flags.enableNamespacesByDefault === true,
    matchConditions: flags.matchConditions,
    excludedNamespaces: flags.excludeNamespace ?? [],
    certMode,
    existingSecret: flags.existingSecret,
    tlsCaValidity: flags.tlsCaValidity,
    tlsCertValidity: flags.tlsCertValidity,
    caFile: flags.caFile,
    certsDir: flags.certsDir,
    clusterDomain: flags.clusterDomain,
    caBundleReconcile: flags.caBundleReconcile,
    reconcile: flags.reconcile === true,
    reconcileRestart: flags.reconcileRestart === true,
    priorityClassName: flags.priorityClassName,
    port: flags.port,
    monitoringPort: flags.monitoringPort,
    logLevel: flags.logLevel,
    drainDelaySeconds: flags.drainDelay / 1000,
    includeNamespace: flags.namespaceObject,
    revision: flags.revision,
    tags: flags.tag ?? [],
    webhookUrl: flags.webhookUrl,
    prometheusRule: flags.prometheusRule === true,
    serviceMonitor: flags.serviceMonitor === true,
    monitoringLabels: flags.monitoringLabel ?? {},
  };
  // Loaded here, not at the top: the generator pulls in X.509 and YAML code the rest of the CLI does not need.
  const { generateInstall } = await import('../install/index.js');
  const result = await generateInstall(request);
  // The YAML is ours and all YAML: only json needs a conversion.
  await writeStream(io, flags.outputFile, result.yaml, flags.output);
  for (const note of result.notes) io.stderr(`${note}\n`);
  // URL mode writes no Deployment, so no image is used.
  if (flags.image === undefined && flags.webhookUrl === undefined) io.stderr(DEFAULT_IMAGE_WARNING);
}

/** The default image is a name, not a published image: say so, and how to make one. */
export const DEFAULT_IMAGE_WARNING =
  `warning: no --image: the manifests use ${defaultImage()}, which is not published yet, so pods would not start. ` +
  `Build one with npm run image (out/image) and push it (skopeo copy oci:out/image:${packageVersion()} docker://REGISTRY/sidecar-injector:TAG, or crane push), then pass --image REGISTRY/sidecar-injector:TAG (docs/install.md)\n`;
