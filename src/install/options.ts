/**
 * @module install/options
 * What an install is made of, as the `manifests` flags and the Helm chart's values say it:
 * defaults, and validation of everything a user can get wrong before any object is built
 * (a bad name here would otherwise surface as an apiserver rejection halfway through
 * `kubectl apply`).
 */
import { namespaceNameError, revisionNameError } from '../config/k8s-names.js';
import { InjectorError } from '../errors.js';
import { LOG_LEVELS } from '../telemetry/levels.js';
import { DEFAULT_PORT, ON_ERROR_MODES, type OnError } from '../admission/server-defaults.js';
import { readPackageFile } from '../util/package-files.js';
import { lifetimeMs } from '../util/duration.js';

type FailurePolicy = 'Fail' | 'Ignore';
type ReinvocationPolicy = 'IfNeeded' | 'Never';
type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';

/** How the serving certificate reaches the cluster. */
export type CertMode =
  /** The default: the server makes and renews its CA and certificate in `<name>-certs`, created empty here. */
  | 'provision'
  /** Generated here (or reused from --certs-dir): a Secret and the caBundle are written. */
  | 'generate'
  /** The user's own Secret (`existingSecret`, default `<name>-tls`), read through the API; caBundle from --ca-file or the reconciler. */
  | 'none'
  /** cert-manager issues `<name>-tls` (self-signed Issuer + Certificate) and injects the caBundle. */
  | 'cert-manager';

export interface InstallOptions {
  name: string;
  namespace: string;
  image: string;
  imagePullPolicy: PullPolicy;
  replicas: number;
  failurePolicy: FailurePolicy;
  timeoutSeconds: number;
  reinvocationPolicy: ReinvocationPolicy;
  /** The server's --on-error: deny under Fail, allow under Ignore unless set. */
  onError: OnError;
  enableNamespacesByDefault: boolean;
  matchConditions: boolean;
  /** Namespaces excluded besides Istio's four, the injector's own and the config's ignoredNamespaces. */
  excludedNamespaces: string[];
  certMode: CertMode;
  /** With certMode `none`: the Secret holding tls.crt, tls.key (and ca.crt). Default `<name>-tls`. */
  existingSecret?: string;
  /** With certMode `provision`: lifetimes as `serve --tls-ca-validity`/`--tls-cert-validity` take them (e.g. 3650d, 90d); default serve's. */
  tlsCaValidity?: string;
  tlsCertValidity?: string;
  clusterDomain: string;
  /** Run the caBundle reconciler (serve --webhook-config) with its RBAC. Off with cert-manager. */
  caBundleReconcile: boolean;
  /** Run `serve --reconcile` (self-healing: metrics, Events) with its RBAC. */
  reconcile: boolean;
  /** And let it restart workloads (`--reconcile-restart`; implies reconcile; adds get/patch on workloads). */
  reconcileRestart: boolean;
  priorityClassName?: string;
  port: number;
  monitoringPort: number;
  logLevel: string;
  /** Seconds the server keeps serving (not ready) after SIGTERM, so endpoints update first. */
  drainDelaySeconds: number;
  /** Write a prometheus-operator PrometheusRule with the alerts (deploy/monitoring, docs/runbooks.md). */
  prometheusRule: boolean;
  /** Write a prometheus-operator ServiceMonitor scraping the monitoring port of the Service. */
  serviceMonitor: boolean;
  /** Extra labels on the PrometheusRule and ServiceMonitor, so a Prometheus' ruleSelector and serviceMonitorSelector pick them up. */
  monitoringLabels: Record<string, string>;
  /**
   * URL mode: the webhook runs outside the cluster (a laptop, a VM) at this `https://` base URL,
   * and the apiserver calls `<url>/inject` directly. Only the MutatingWebhookConfiguration is
   * written; the certificate is issued for the URL's host.
   */
  webhookUrl?: string;
  /**
   * A revisioned injector beside the default one (Istio's revisions): every object is named
   * `<name>-<revision>`, the server runs with `--revision`, and its webhook selects only what is
   * labelled `<revisionLabel>=<revision>`. Empty: the default revision.
   */
  revision: string;
  /**
   * Revision tags pointing at this install (Istio's `istio-revision-tag-<tag>`): one more
   * MutatingWebhookConfiguration each, `<name>-revision-tag-<tag>`, selecting
   * `<revisionLabel>=<tag>` (and, for `default`, the default revision's selectors).
   */
  tags: string[];
  /** `name` as given, before the revision suffix: tags are named from it, so they outlive a revision. */
  baseName: string;
}

export const DEFAULT_NAME = 'sidecar-injector';
export const DEFAULT_IMAGE_REPOSITORY = 'ghcr.io/sidecar-injector/sidecar-injector';

/**
 * The package version, for the default image tag and labels. Read from package.json (one level
 * above both src/ and dist/) rather than imported from the CLI, which imports this module.
 */
export function packageVersion(): string {
  cachedVersion ??= (JSON.parse(readPackageFile('package.json')) as { version: string }).version;
  return cachedVersion;
}
let cachedVersion: string | undefined;

export function defaultImage(): string {
  return `${DEFAULT_IMAGE_REPOSITORY}:${packageVersion()}`;
}
/** Gatekeeper's lesson (gatekeeper#870): well under the 10 s lease renewals of the control plane. */
export const DEFAULT_TIMEOUT_SECONDS = 3;
/** serve's default HTTPS port; unprivileged, so the container runs as non-root. */
export const DEFAULT_WEBHOOK_PORT = DEFAULT_PORT;
export const DEFAULT_MONITORING_PORT = 9090;
/** Mount points inside the container. */
export const TLS_MOUNT = '/etc/sidecar-injector/tls';
export const CONFIG_MOUNT = '/etc/sidecar-injector/config';
/** The user the image runs as (distroless `nonroot`); the pod asks for it explicitly. */
export const RUN_AS_USER = 65532;

function defaultInstallOptions(): InstallOptions {
  return {
    name: DEFAULT_NAME,
    namespace: DEFAULT_NAME,
    image: defaultImage(),
    imagePullPolicy: 'IfNotPresent',
    replicas: 2,
    failurePolicy: 'Fail',
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
    reinvocationPolicy: 'IfNeeded',
    onError: 'deny',
    enableNamespacesByDefault: false,
    matchConditions: true,
    excludedNamespaces: [],
    certMode: 'provision',
    clusterDomain: 'cluster.local',
    caBundleReconcile: true,
    reconcile: false,
    reconcileRestart: false,
    port: DEFAULT_WEBHOOK_PORT,
    monitoringPort: DEFAULT_MONITORING_PORT,
    logLevel: 'info',
    drainDelaySeconds: 5,
    revision: '',
    tags: [],
    baseName: DEFAULT_NAME,
    prometheusRule: false,
    serviceMonitor: false,
    monitoringLabels: {},
  };
}

const DNS1035_LABEL = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function usage(message: string): InjectorError {
  return new InjectorError('SI_USAGE', message);
}

/**
 * Fill defaults and check every option; throws SI_USAGE naming the flag. `onError` follows the
 * failure policy unless given: fail closed answers deny, fail open answers allow.
 */
export function resolveInstallOptions(given: Partial<InstallOptions>): InstallOptions {
  const defined = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Partial<InstallOptions>;
  const o: InstallOptions = { ...defaultInstallOptions(), ...defined };
  if (defined.onError === undefined) o.onError = o.failurePolicy === 'Fail' ? 'deny' : 'allow';
  // Nothing in the cluster can provision for a server outside it; naming a Secret means using it.
  if (defined.certMode === undefined) o.certMode = o.webhookUrl !== undefined ? 'generate' : o.existingSecret !== undefined ? 'none' : 'provision';
  if (o.certMode === 'cert-manager') o.caBundleReconcile = false;
  if (o.reconcileRestart) o.reconcile = true;

  // The name is used for the Service (DNS-1035), so that is the strictest rule it must meet;
  // `-tls`, `-selfsigned` are appended, so keep room for them.
  if (!DNS1035_LABEL.test(o.name) || o.name.length > 52) {
    throw usage(
      `--name "${o.name}" must be a lower-case DNS label of at most 52 characters starting with a letter (it names the Service, the Deployment and the webhook configuration)`,
    );
  }
  o.baseName = o.name;
  resolveRevision(o);
  const nsError = namespaceNameError(o.namespace);
  if (nsError) throw usage(`--namespace: ${nsError}`);
  for (const ns of o.excludedNamespaces) {
    const err = namespaceNameError(ns);
    if (err) throw usage(`--exclude-namespace: ${err}`);
  }
  if (!DNS1123_SUBDOMAIN.test(o.clusterDomain)) throw usage(`--cluster-domain "${o.clusterDomain}" is not a DNS domain`);
  if (o.image.trim() === '' || /\s/.test(o.image)) throw usage(`--image "${o.image}" is not an image reference`);
  if (!['Always', 'IfNotPresent', 'Never'].includes(o.imagePullPolicy)) throw usage(`--image-pull-policy must be Always, IfNotPresent or Never`);
  if (!Number.isInteger(o.replicas) || o.replicas < 1 || o.replicas > 100) throw usage('--replicas must be a whole number from 1 to 100');
  if (o.failurePolicy !== 'Fail' && o.failurePolicy !== 'Ignore') throw usage('--failure-policy must be Fail or Ignore');
  if (!Number.isInteger(o.timeoutSeconds) || o.timeoutSeconds < 1 || o.timeoutSeconds > 30)
    throw usage("--timeout-seconds must be a whole number from 1 to 30 (the apiserver's range)");
  if (o.reinvocationPolicy !== 'IfNeeded' && o.reinvocationPolicy !== 'Never') throw usage('--reinvocation-policy must be IfNeeded or Never');
  if (!(ON_ERROR_MODES as readonly string[]).includes(o.onError)) throw usage(`--on-error must be ${ON_ERROR_MODES.join(' or ')}`);
  if (!(LOG_LEVELS as readonly string[]).includes(o.logLevel)) throw usage(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  if (o.priorityClassName !== undefined && !DNS1123_SUBDOMAIN.test(o.priorityClassName))
    throw usage(`--priority-class-name "${o.priorityClassName}" is not a valid name`);
  for (const [flag, port] of [
    ['--port', o.port],
    ['--monitoring-port', o.monitoringPort],
  ] as const) {
    // Unprivileged only: the container runs as a non-root user without NET_BIND_SERVICE.
    if (!Number.isInteger(port) || port < 1024 || port > 65535) throw usage(`${flag} must be from 1024 to 65535 (the container runs as non-root)`);
  }
  if (o.port === o.monitoringPort) throw usage('--port and --monitoring-port must differ');
  if (!Number.isInteger(o.drainDelaySeconds) || o.drainDelaySeconds < 0 || o.drainDelaySeconds > 60) throw usage('--drain-delay must be 0 to 60 seconds');
  for (const [key, value] of Object.entries(o.monitoringLabels)) {
    const error = labelError(key, value);
    if (error) throw usage(`--monitoring-label ${key}=${value}: ${error}`);
  }
  if (o.webhookUrl !== undefined) {
    o.webhookUrl = webhookBaseUrl(o.webhookUrl);
    // Nothing runs in the cluster to reconcile the caBundle or to be issued a certificate by cert-manager.
    if (o.certMode === 'cert-manager')
      throw usage('--webhook-url and --cert-manager do not go together: cert-manager cannot issue a certificate for a server outside the cluster');
    if (o.certMode === 'provision')
      throw usage(
        '--webhook-url: the server runs outside the cluster, where it cannot keep a certificate in a Secret; use --certs-dir DIR (the default in URL mode)',
      );
    if (o.existingSecret !== undefined)
      throw usage('--webhook-url and --existing-secret do not go together: the server outside the cluster reads its certificate from files (serve --tls-dir)');
    o.caBundleReconcile = false;
    if (o.reconcile)
      throw usage('--webhook-url and --reconcile do not go together: the reconciler runs in the injector Deployment, which URL mode does not write');
    if (o.prometheusRule || o.serviceMonitor)
      throw usage(
        '--webhook-url and --prometheus-rule/--service-monitor do not go together: URL mode writes only the webhook configuration; scrape your server yourself and load deploy/monitoring/sidecar-injector.rules.yaml',
      );
  }
  checkTlsOptions(o);
  return o;
}

/** Check --revision and --tag, and name the install after its revision. */
function resolveRevision(o: InstallOptions): void {
  o.tags = [...new Set(o.tags)];
  if (o.revision !== '') {
    const err = revisionNameError(o.revision);
    if (err !== undefined) throw usage(`--revision: ${err}`);
    o.name = `${o.baseName}-${o.revision}`;
    if (o.name.length > 52)
      throw usage(
        `--name and --revision make "${o.name}", longer than 52 characters (it names the Service, the Deployment and the webhook configuration): shorten one`,
      );
    // Istio's revisioned webhook has no auto. entry; only the default revision (or the default tag) injects unlabelled namespaces.
    if (o.enableNamespacesByDefault && !o.tags.includes('default'))
      throw usage(
        '--enable-namespaces-by-default belongs to the default revision: a revision injects only what is labelled with it (add --tag default to make this revision the default one)',
      );
  }
  for (const tag of o.tags) {
    const err = revisionNameError(tag, 'tag');
    if (err !== undefined) throw usage(`--tag: ${err}`);
    // Both the revision's webhook and the tag's would select <revisionLabel>=NAME: every pod injected twice.
    if (tag === o.revision) throw usage(`--tag ${tag} is the revision's own name: a tag is another name for a revision, pick one that no revision has`);
    if (tagConfigurationName(o.baseName, tag).length > 253) throw usage(`--tag ${tag}: the webhook configuration name would be too long`);
  }
}

/** The config names the revision (Istio's values.revision) and no --revision was given: install it as that revision. */
export function resolveRevisionFromConfig(o: InstallOptions, revision: string): void {
  o.name = o.baseName;
  o.revision = revision;
  const err = revisionNameError(revision);
  if (err !== undefined) throw usage(`the config's values.revision: ${err}`);
  resolveRevision(o);
}

/** The MutatingWebhookConfiguration of a revision tag (Istio's `istio-revision-tag-<tag>`). */
export function tagConfigurationName(baseName: string, tag: string): string {
  return `${baseName}-revision-tag-${tag}`;
}

const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$/;

/** Kubernetes' label syntax: an optional DNS-subdomain prefix, a name and a value of at most 63 characters. */
function labelError(key: string, value: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = key.slice(slash + 1);
  if (prefix !== undefined && !DNS1123_SUBDOMAIN.test(prefix)) return `the key's prefix "${prefix}" is not a DNS subdomain`;
  if (name.length > 63 || !LABEL_NAME.test(name))
    return 'the key must be at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit';
  if (value !== '' && (value.length > 63 || !LABEL_NAME.test(value)))
    return 'the value must be empty or at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit';
  return undefined;
}

function checkTlsOptions(o: InstallOptions): void {
  if (o.existingSecret !== undefined) {
    if (o.certMode !== 'none')
      throw usage('--existing-secret names your own certificate: it does not go with generated, self-provisioned or cert-manager certificates');
    if (!DNS1123_SUBDOMAIN.test(o.existingSecret)) throw usage(`--existing-secret "${o.existingSecret}" is not a valid Secret name`);
  }
  for (const [flag, value] of [
    ['--tls-ca-validity', o.tlsCaValidity],
    ['--tls-cert-validity', o.tlsCertValidity],
  ] as const) {
    if (value === undefined) continue;
    if (o.certMode !== 'provision') throw usage(`${flag} only goes with self-provisioned certificates (the default)`);
    // serve judges the bounds; here only what serve could not read at all.
    if (lifetimeMs(value) === undefined) throw usage(`${flag} "${value}" is not a lifetime such as 3650d, 90d, 2160h or 12h30m (whole days or a Go duration)`);
  }
  if (o.certMode === 'provision' && !o.caBundleReconcile) {
    throw usage(
      'self-provisioned certificates need the caBundle reconciler (the server puts the CA it makes into the caBundle): drop --no-ca-bundle-reconcile, or bring a certificate (--certs-dir, --existing-secret, --cert-manager)',
    );
  }
}

/** The Secret the serving certificate lives in (the certs command's default name too). */
export function tlsSecretName(name: string): string {
  return `${name}-tls`;
}

/** The Secret a self-provisioning server fills: not `<name>-tls`, whose type (kubernetes.io/tls) cannot change on an upgrade from another mode. */
export function provisionedSecretName(name: string): string {
  return `${name}-certs`;
}

/** The Secret `serve --tls-secret` reads, or undefined when the certificate is mounted (generated, cert-manager) or in URL mode. */
export function servedSecretName(o: InstallOptions): string | undefined {
  if (o.webhookUrl !== undefined) return undefined;
  if (o.certMode === 'provision') return provisionedSecretName(o.name);
  if (o.certMode === 'none') return o.existingSecret ?? tlsSecretName(o.name);
  return undefined;
}

/**
 * The apiserver's rules for `clientConfig.url` (admissionregistration validation): https only, a
 * host, no user info, query or fragment. A trailing slash is dropped so `/inject` can be appended.
 */
function webhookBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usage(`--webhook-url "${text}" is not a URL; expected e.g. https://192.0.2.10:9443`);
  }
  if (url.protocol !== 'https:') throw usage(`--webhook-url "${text}" must use https (the apiserver calls webhooks over TLS only)`);
  if (url.username || url.password) throw usage(`--webhook-url "${text}" must not carry a user or password`);
  if (url.search || url.hash || text.includes('?') || text.includes('#')) throw usage(`--webhook-url "${text}" must not have a query or fragment`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** The URL's host as a certificate SAN: an IP address (brackets dropped) or a DNS name. */
export function webhookUrlHost(base: string): string {
  return new URL(base).hostname.replace(/^\[(.*)\]$/, '$1');
}
