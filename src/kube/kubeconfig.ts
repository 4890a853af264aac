/**
 * @module kube/kubeconfig
 * The kubeconfig as kubectl finds and reads it: `--kubeconfig FILE`, else every file of
 * `$KUBECONFIG` merged (the first file to name a cluster, user or context wins, and the first
 * `current-context`), else `~/.kube/config`, else the pod's service account. Relative paths in
 * a file are relative to that file. The mistakes a user makes are named, each an
 * SI_CLUSTER_CONFIG that says what to do: no kubeconfig at all, a missing file, an unknown
 * context, a context without a server, a plain-http server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { ClusterError } from '../errors.js';
import { getOwn, isPlainObject } from '../util/json.js';
import { parseKubeYaml } from '../yaml/index.js';

export interface ConnectOptions {
  kubeconfig?: string;
  context?: string;
}

/** One named entry (cluster, user or context) and the directory of the file it came from. */
export interface Entry {
  name: string;
  value: Record<string, unknown>;
  dir: string;
}

/** The context chosen: where requests go and with whose credentials. */
export interface KubeconfigTarget {
  /** The file(s) read, for messages. */
  source: string;
  context: string;
  namespace: string | undefined;
  server: URL;
  cluster: Entry;
  /** Undefined when the context names no user (anonymous requests). */
  user: Entry | undefined;
}

const configError = (message: string, cause?: unknown) => new ClusterError('SI_CLUSTER_CONFIG', message, { cause });

/** The files kubectl would read, in order; undefined when there are none (then in-cluster, if in a pod). */
export function kubeconfigFiles(options: ConnectOptions, env: Readonly<Record<string, string | undefined>> = process.env): string[] | undefined {
  if (options.kubeconfig !== undefined) return [options.kubeconfig];
  if (env.KUBECONFIG) {
    const files = env.KUBECONFIG.split(delimiter).filter((f) => f !== '' && existsSync(f));
    return files.length > 0 ? files : undefined;
  }
  const home = join(env.HOME ?? homedir(), '.kube', 'config');
  return existsSync(home) ? [home] : undefined;
}

/** Read and merge the files, choose the context, and check that it can be used. */
export function loadKubeconfig(files: string[], options: ConnectOptions): KubeconfigTarget {
  const flag = options.kubeconfig !== undefined ? '--kubeconfig' : 'KUBECONFIG';
  const source = files.join(delimiter);
  const clusters = new Map<string, Entry>();
  const users = new Map<string, Entry>();
  const contexts = new Map<string, Entry>();
  let current: string | undefined;
  for (const file of files) {
    let doc: unknown;
    try {
      doc = parseKubeYaml(readFileSync(file, 'utf8')).value ?? {};
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'the file does not exist' : err instanceof Error ? err.message : String(err);
      throw configError(`cannot read the kubeconfig ${file}: ${why}; point ${flag} at a kubeconfig file (kubectl config view shows the one kubectl uses)`, err);
    }
    if (!isPlainObject(doc)) throw configError(`cannot read the kubeconfig ${file}: it is not a mapping; point ${flag} at a kubeconfig file`);
    const dir = dirname(resolve(file));
    collect(doc, 'clusters', 'cluster', file, dir, clusters);
    collect(doc, 'users', 'user', file, dir, users);
    collect(doc, 'contexts', 'context', file, dir, contexts);
    const cc = getOwn(doc, 'current-context');
    if (current === undefined && typeof cc === 'string' && cc !== '') current = cc;
  }
  const name = options.context ?? current;
  const context = name === undefined ? undefined : contexts.get(name);
  if (context === undefined) {
    const names = [...contexts.keys()];
    if (options.context !== undefined)
      throw configError(
        `context "${options.context}" is not in the kubeconfig ${source}; its contexts: ${names.length > 0 ? names.join(', ') : 'none'} (kubectl config get-contexts)`,
      );
    throw configError(
      name === undefined
        ? `the kubeconfig ${source} has no current-context; choose one with --context (kubectl config get-contexts)`
        : `the kubeconfig's current-context "${name}" is not among its contexts; choose one with --context (kubectl config get-contexts)`,
    );
  }
  const clusterName = getOwn(context.value, 'cluster');
  const cluster = typeof clusterName === 'string' ? clusters.get(clusterName) : undefined;
  const serverText = cluster === undefined ? undefined : getOwn(cluster.value, 'server');
  if (cluster === undefined || typeof serverText !== 'string' || serverText === '')
    throw configError(`the kubeconfig's context "${context.name}" names no cluster with a server; choose one with --context (kubectl config get-contexts)`);
  let server: URL;
  try {
    server = new URL(serverText);
  } catch (err) {
    throw configError(`the cluster "${cluster.name}" has a server "${serverText}" that is not a URL`, err);
  }
  if (server.protocol === 'http:' && getOwn(cluster.value, 'insecure-skip-tls-verify') !== true)
    throw configError(`the cluster "${cluster.name}" has a plain-http server (${serverText}): use its https address in the kubeconfig`);
  if (server.protocol !== 'http:' && server.protocol !== 'https:')
    throw configError(`the cluster "${cluster.name}" has a server "${serverText}" that is not https`);
  const userName = getOwn(context.value, 'user');
  const user = typeof userName === 'string' && userName !== '' ? users.get(userName) : undefined;
  if (typeof userName === 'string' && userName !== '' && user === undefined)
    throw configError(`the kubeconfig's context "${context.name}" names user "${userName}", which it does not define`);
  const namespace = getOwn(context.value, 'namespace');
  return { source, context: context.name, namespace: typeof namespace === 'string' && namespace !== '' ? namespace : undefined, server, cluster, user };
}

function collect(doc: Record<string, unknown>, list: string, key: string, file: string, dir: string, into: Map<string, Entry>): void {
  const items = getOwn(doc, list) ?? [];
  if (!Array.isArray(items)) throw configError(`the kubeconfig ${file}: ${list} is not a list`);
  for (const [i, item] of items.entries()) {
    const name = isPlainObject(item) ? getOwn(item, 'name') : undefined;
    const value = isPlainObject(item) ? (getOwn(item, key) ?? {}) : undefined;
    if (typeof name !== 'string' || !isPlainObject(value)) throw configError(`the kubeconfig ${file}: ${list}[${i}] needs a name and a ${key} mapping`);
    if (!into.has(name)) into.set(name, { name, value, dir });
  }
}
