/**
 * @module install/build-manifests
 * `manifests` as a library: resolve options, load and validate the config, get the certificate
 * material, build every object and write them as one multi-document YAML in an order that
 * `kubectl apply -f` accepts in one pass (Namespace first; the webhook configuration last, so
 * it starts sending pods only after everything it points at exists).
 */
import { stringifyObject } from '../yaml/index.js';
import type { JsonValue } from '../util/json.js';
import { reconcileRbacObjects } from './reconcile-rbac.js';
import { clusterRole, clusterRoleBinding, configMap, certManagerObjects, namespaceObject, serviceAccount, tlsSecret } from './base-objects.js';
import { configMapData } from './config-data.js';
import { MANAGED_BY, type InstallContext } from './install-context.js';
import { InjectorError } from '../errors.js';
import { packageVersion, resolveInstallOptions, resolveRevisionFromConfig, type InstallOptions } from './options.js';
import { installCertificates, type CertificateSources } from './tls.js';
import { monitoringObjects } from './monitoring-objects.js';
import { mutatingWebhookConfiguration, tagWebhookConfigurations } from './webhook-configuration.js';
import { deployment, podDisruptionBudget, service } from './workload.js';
import { provisionedSecret, tlsAccessObjects } from './tls-access.js';

/** A generated Kubernetes object (plain JSON data). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata?: { name?: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface InstallRequest extends Partial<InstallOptions>, CertificateSources {
  /** --config: a directory, a YAML file or a ConfigMap manifest; the built-in config when omitted. */
  config?: string;
  /** Emit the Namespace object (default: true, false for a revision, which shares the namespace). */
  includeNamespace?: boolean;
}

export interface GeneratedInstall {
  context: InstallContext;
  objects: KubeObject[];
  yaml: string;
  /** Advice for the user (stderr), e.g. where the CA went. */
  notes: string[];
}

export async function generateInstall(request: InstallRequest = {}): Promise<GeneratedInstall> {
  const { config, certsDir, caFile, now, includeNamespace, ...given } = request;
  // A certificates directory asks for generated certificates (the default is self-provisioning).
  const options = resolveInstallOptions(certsDir !== undefined && given.certMode === undefined ? { ...given, certMode: 'generate' } : given);
  const data = await configMapData(config);
  adoptConfigRevision(options, data.loaded.values.revision);
  const certs = await installCertificates(options, { certsDir, caFile, now });
  const context: InstallContext = {
    options,
    keys: { ...data.loaded.injectionKeys },
    excludedNamespaces: [...new Set([...data.loaded.ignoredNamespaces, ...options.excludedNamespaces])],
    certs,
    configMap: { config: data.config, values: data.values },
    version: packageVersion(),
    managedBy: MANAGED_BY,
  };
  if (options.tags.length > 0 && certs.caBundle === undefined && options.certMode !== 'cert-manager') {
    // The server's reconciler keeps only its own configuration's caBundle; a tag's would stay empty and every call would fail TLS.
    throw new InjectorError(
      'SI_USAGE',
      "--tag needs a caBundle written into the tag's webhook configuration, which the server does not keep in sync (it keeps only its own): use --certs-dir DIR (generated certificates), --existing-secret with --ca-file, or --cert-manager",
    );
  }
  const objects = buildInstallObjects(context, { includeNamespace: includeNamespace ?? options.revision === '' });
  const notes = [...certs.notes, ...data.loaded.warnings.map((w) => `config warning: ${w}`)];
  if (options.revision !== '' && includeNamespace === undefined && options.webhookUrl === undefined) {
    notes.push(
      `Revision ${options.revision}: no Namespace object (the revisions share ${options.namespace}; the default install writes it, or pass --namespace-object, or kubectl create namespace ${options.namespace}).`,
    );
  }
  if (options.replicas < 2) {
    notes.push(
      `One replica${options.failurePolicy === 'Fail' ? ' with failurePolicy Fail: while it restarts, opted-in pods cannot be created' : ''}; no PodDisruptionBudget is written (it would block node drains).`,
    );
  }
  return { context, objects, yaml: installYaml(objects, context.version), notes };
}

/** The objects in apply order. */
function buildInstallObjects(ctx: InstallContext, options: { includeNamespace?: boolean } = {}): KubeObject[] {
  // URL mode: the server runs outside the cluster, so the webhook configuration is all there is.
  if (ctx.options.webhookUrl !== undefined) return [mutatingWebhookConfiguration(ctx), ...tagWebhookConfigurations(ctx)] as unknown as KubeObject[];
  const out: unknown[] = [];
  if (options.includeNamespace !== false) out.push(namespaceObject(ctx));
  out.push(serviceAccount(ctx));
  if (ctx.options.caBundleReconcile) out.push(clusterRole(ctx), clusterRoleBinding(ctx));
  if (ctx.options.reconcile) out.push(...reconcileRbacObjects(ctx));
  out.push(...tlsAccessObjects(ctx));
  out.push(configMap(ctx));
  if (ctx.options.certMode === 'cert-manager') out.push(...certManagerObjects(ctx));
  else out.push(tlsSecret(ctx) ?? provisionedSecret(ctx));
  out.push(
    service(ctx),
    deployment(ctx),
    podDisruptionBudget(ctx),
    ...monitoringObjects(ctx),
    mutatingWebhookConfiguration(ctx),
    ...tagWebhookConfigurations(ctx),
  );
  return out.filter((o) => o !== undefined) as KubeObject[];
}

/**
 * Istio's revisioned ConfigMap (`istio-sidecar-injector-1-25`) carries its revision in
 * `values.revision`: installed as it is, it is that revision, as in Istio. A different
 * --revision is refused (the status annotations would name one revision, the selectors another).
 */
function adoptConfigRevision(options: InstallOptions, fromValues: unknown): void {
  if (typeof fromValues !== 'string' || fromValues === '' || fromValues === 'default') return;
  if (options.revision === '') {
    resolveRevisionFromConfig(options, fromValues);
    return;
  }
  if (options.revision !== fromValues) {
    throw new InjectorError(
      'SI_USAGE',
      `--revision ${options.revision}, but the config's values.revision is "${fromValues}": make them agree (or drop --revision to install it as revision ${fromValues})`,
    );
  }
}

/** One multi-document YAML, Kubernetes style. */
function installYaml(objects: readonly KubeObject[], version = packageVersion()): string {
  const header = `# sidecar-injector ${version} install manifests. Apply with: kubectl apply -f FILE\n`;
  return header + objects.map((o) => `---\n${stringifyObject(o as unknown as JsonValue)}`).join('');
}
