/**
 * @module kube/in-cluster
 * Where the pod's Kubernetes credentials are: the apiserver address from the
 * `KUBERNETES_SERVICE_HOST`/`_PORT` variables kubelet injects, and the service account's token,
 * CA and namespace from the projected volume. Only paths are kept for the token and CA: bound
 * tokens are rotated by kubelet (about hourly) and the client re-reads them on every request.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ClusterError } from '../errors.js';
import { decodeCertificates } from '../certs/pem.js';

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface InClusterConfig {
  /** Host name or IP address, IPv6 without brackets. */
  host: string;
  port: number;
  tokenFile: string;
  caFile: string;
  /** The pod's namespace, when the service account volume has it. */
  namespace: string | undefined;
}

export interface InClusterOptions {
  /** Service account directory; tests point it at a temporary directory. */
  dir?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/** The apiserver address kubelet gives a pod; undefined outside a pod. Throws on a malformed port. */
export function inClusterAddress(env: Readonly<Record<string, string | undefined>> = process.env): { host: string; port: number } | undefined {
  const host = env.KUBERNETES_SERVICE_HOST?.trim().replace(/^\[(.*)\]$/, '$1');
  const portText = env.KUBERNETES_SERVICE_PORT?.trim();
  if (!host || !portText) return undefined;
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) {
    throw new ClusterError('SI_CLUSTER_CONFIG', `KUBERNETES_SERVICE_PORT "${portText}" is not a port number`);
  }
  return { host, port };
}

/** The service account's files, without reading them (the first request does, with a message). */
export function serviceAccountConfig(address: { host: string; port: number }, dir = SERVICE_ACCOUNT_DIR): InClusterConfig {
  let namespace: string | undefined;
  try {
    namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    namespace = undefined; // optional: a default namespace only
  }
  return { ...address, tokenFile: join(dir, 'token'), caFile: join(dir, 'ca.crt'), namespace };
}

/** Check that in-cluster credentials are present and readable; errors say what is missing. */
export async function loadInClusterConfig(options: InClusterOptions = {}): Promise<InClusterConfig> {
  const env = options.env ?? process.env;
  const dir = options.dir ?? SERVICE_ACCOUNT_DIR;
  const address = inClusterAddress(env);
  if (address === undefined) {
    throw new ClusterError(
      'SI_CLUSTER_CONFIG',
      'KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set: not running in a Kubernetes pod, so the caBundle (--webhook-config) and the TLS Secret (--tls-secret) cannot be reached with its service account; outside a pod, pass --kubeconfig (or --context) to reach them with a kubeconfig',
    );
  }
  // The same files the fallback of every command reads (serviceAccountConfig), checked here at once.
  const config = serviceAccountConfig(address, dir);
  await readToken(config.tokenFile);
  const caPem = await readCredential(config.caFile, 'service account CA');
  try {
    decodeCertificates(caPem, config.caFile);
  } catch (err) {
    throw new ClusterError('SI_CLUSTER_CONFIG', (err as Error).message, { cause: err });
  }
  return config;
}

/** The current bearer token; re-read each call because kubelet rotates it in place. */
export async function readToken(tokenFile: string): Promise<string> {
  const token = (await readCredential(tokenFile, 'service account token')).trim();
  if (token === '') throw new ClusterError('SI_CLUSTER_CONFIG', `the service account token ${tokenFile} is empty; is automountServiceAccountToken disabled?`);
  return token;
}

export async function readCredential(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ClusterError(
      'SI_CLUSTER_CONFIG',
      `cannot read the ${what} ${path}: ${code}; mount the service account token (automountServiceAccountToken: true)`,
      { cause: err },
    );
  }
}
