/**
 * @module kube/endpoint
 * Where requests go and with which credentials, one way for every command: a kubeconfig
 * context (token, token file, client certificate, basic auth, exec plugin, impersonation, an
 * http(s) proxy-url, as kubectl applies them) or the pod's service account. The connection is asked for before every
 * request, because credentials change under a running process: kubelet rotates the service
 * account token and CA in place, a token file is rewritten, an exec credential expires.
 */
import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { resolve } from 'node:path';
import { ClusterError } from '../errors.js';
import { getOwn, isPlainObject } from '../util/json.js';
import { type ExecConfig, type ExecResult, parseExecConfig, runExecPlugin } from './exec-credential.js';
import { type InClusterConfig, inClusterAddress, readCredential, readToken, serviceAccountConfig } from './in-cluster.js';
import { type ConnectOptions, type Entry, type KubeconfigTarget, kubeconfigFiles, loadKubeconfig } from './kubeconfig.js';
import { ProxyAgent } from './proxy-agent.js';

interface Connection {
  agent: HttpAgent;
  headers: Record<string, string | string[]>;
}

export interface Endpoint {
  /** The API server URL, with the path prefix a kubeconfig's server may have. */
  readonly server: URL;
  /** The context's namespace, or the pod's; undefined when neither says. */
  readonly namespace: string | undefined;
  /** `https://10.0.0.1:6443 (context "dev")`, for messages. */
  readonly description: string;
  connection(): Promise<Connection>;
  /** The apiserver answered 401: forget credentials that can be fetched again (an exec plugin's). */
  refused(): void;
  /** Close pooled connections; the endpoint stays usable. */
  close(): void;
}

/**
 * Connections are kept for reuse, and never capped: every open watch holds one for minutes, so
 * a cap would queue the reconciler's gets and lease renewals behind its watches until they time out.
 */
const POOL = { keepAlive: true } as const;

const configError = (message: string, cause?: unknown) => new ClusterError('SI_CLUSTER_CONFIG', message, { cause });

/**
 * The endpoint kubectl would use: the kubeconfig (--kubeconfig, $KUBECONFIG, ~/.kube/config)
 * with --context, else the pod's service account, else an error that says what to pass.
 */
export function resolveEndpoint(options: ConnectOptions = {}, env: Readonly<Record<string, string | undefined>> = process.env): Endpoint {
  const files = kubeconfigFiles(options, env);
  if (files !== undefined) return kubeconfigEndpoint(loadKubeconfig(files, options));
  const address = inClusterAddress(env);
  if (address === undefined || options.context !== undefined)
    throw configError(
      options.context !== undefined
        ? `--context "${options.context}" needs a kubeconfig, and there is none: KUBECONFIG is not set and ~/.kube/config does not exist; pass --kubeconfig FILE`
        : 'no kubeconfig: KUBECONFIG is not set, ~/.kube/config does not exist and this is not a pod with a service account; pass --kubeconfig FILE or set KUBECONFIG',
    );
  return inClusterEndpoint(serviceAccountConfig(address));
}

/** The pod's service account: token and CA re-read per request, one keep-alive agent per CA content. */
export function inClusterEndpoint(config: InClusterConfig): Endpoint {
  let agent: HttpsAgent | undefined;
  let agentCa: string | undefined;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    server: new URL(`https://${host}:${config.port}`),
    namespace: config.namespace,
    description: `https://${host}:${config.port} (in-cluster service account)`,
    async connection() {
      const token = await readToken(config.tokenFile);
      const ca = await readCredential(config.caFile, 'service account CA');
      if (!agent || ca !== agentCa) {
        agent?.destroy();
        agent = new HttpsAgent({ ca, ...POOL, minVersion: 'TLSv1.2' });
        agentCa = ca;
      }
      return { agent, headers: { Authorization: `Bearer ${token}` } };
    },
    refused() {},
    close() {
      agent?.destroy();
      agent = undefined;
      agentCa = undefined;
    },
  };
}

/** A kubeconfig context. Static credentials are read once, here, so a bad file fails at once. */
export function kubeconfigEndpoint(target: KubeconfigTarget): Endpoint {
  const { cluster, user } = target;
  const insecure = getOwn(cluster.value, 'insecure-skip-tls-verify') === true;
  const serverName = stringField(cluster, 'tls-server-name');
  const proxy = proxyUrl(cluster, target.server);
  const ca = pemField(cluster, 'certificate-authority-data', 'certificate-authority', 'cluster');
  const auth = user === undefined ? { kind: 'none' as const } : userAuth(user, target);
  const staticCert = auth.kind === 'cert' ? auth : { cert: undefined, key: undefined };
  const headers: Record<string, string | string[]> = user === undefined ? {} : impersonation(user);
  let agent: HttpAgent | undefined;
  let agentKey: string | undefined;
  let exec: Promise<ExecResult> | undefined;

  const tls = (cert: string | undefined, key: string | undefined) => ({
    ca,
    cert,
    key,
    rejectUnauthorized: !insecure,
    servername: serverName,
    minVersion: 'TLSv1.2' as const,
  });
  const agentFor = (cert: string | undefined, key: string | undefined): HttpAgent => {
    const k = `${cert ?? ''}|${key ?? ''}`;
    if (agent !== undefined && k === agentKey) return agent;
    agent?.destroy();
    agent =
      target.server.protocol === 'http:'
        ? new HttpAgent(POOL)
        : proxy !== undefined
          ? new ProxyAgent(proxy, { ...tls(cert, key), ...POOL })
          : new HttpsAgent({ ...tls(cert, key), ...POOL });
    agentKey = k;
    return agent;
  };
  const execResult = async (config: ExecConfig): Promise<ExecResult> => {
    const running = exec;
    if (running !== undefined) {
      const result = await running.catch(() => undefined);
      if (result !== undefined && (result.expiresAt === undefined || result.expiresAt > Date.now())) return result;
      if (exec !== running) return execResult(config); // another request already started the next run
    }
    const clusterInfo = { server: target.server.href, ...(ca !== undefined ? { 'certificate-authority-data': Buffer.from(ca).toString('base64') } : {}) };
    // One run at a time: concurrent requests wait for the same answer.
    exec = runExecPlugin(config, clusterInfo);
    return exec;
  };

  return {
    server: target.server,
    namespace: target.namespace,
    description: `${target.server.href.replace(/\/$/, '')} (context "${target.context}")`,
    async connection() {
      const h: Record<string, string | string[]> = { ...headers };
      switch (auth.kind) {
        case 'token':
          h.Authorization = `Bearer ${auth.token}`;
          break;
        case 'tokenFile':
          h.Authorization = `Bearer ${await readTokenFile(auth.path, user!.name)}`;
          break;
        case 'basic':
          h.Authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
          break;
        case 'exec': {
          const result = await execResult(auth.config);
          if (result.token !== undefined) h.Authorization = `Bearer ${result.token}`;
          if (result.clientCertificateData !== undefined) return { agent: agentFor(result.clientCertificateData, result.clientKeyData), headers: h };
          break;
        }
      }
      return { agent: agentFor(staticCert.cert, staticCert.key), headers: h };
    },
    refused() {
      exec = undefined;
    },
    close() {
      agent?.destroy();
      agent = undefined;
      agentKey = undefined;
    },
  };
}

/** `proxy-url`: an http(s) proxy that tunnels with CONNECT; socks5 is refused in words. */
function proxyUrl(cluster: Entry, server: URL): URL | undefined {
  const text = stringField(cluster, 'proxy-url');
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch (err) {
    throw configError(`the cluster "${cluster.name}" has a proxy-url "${text}" that is not a URL`, err);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw configError(
      `the cluster "${cluster.name}" has a ${url.protocol.replace(':', '')} proxy-url, which sidecar-injector does not support: use an http or https proxy`,
    );
  if (server.protocol !== 'https:') throw configError(`the cluster "${cluster.name}" has a proxy-url and a plain-http server: the proxy tunnels TLS only`);
  return url;
}

type UserAuth =
  | { kind: 'none' }
  | { kind: 'token'; token: string }
  | { kind: 'tokenFile'; path: string }
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'cert'; cert: string; key: string }
  | { kind: 'exec'; config: ExecConfig };

/** How the user authenticates; client-go's order: a client certificate, else a token (file first), else basic, else exec or auth-provider. */
function userAuth(user: Entry, target: KubeconfigTarget): UserAuth {
  const cert = pemField(user, 'client-certificate-data', 'client-certificate', 'user');
  const key = pemField(user, 'client-key-data', 'client-key', 'user');
  if ((cert === undefined) !== (key === undefined))
    throw configError(`the kubeconfig user "${user.name}" has a client certificate without a key, or a key without a certificate`);
  const exec = getOwn(user.value, 'exec');
  if (exec !== undefined) {
    if (cert !== undefined) throw configError(`the kubeconfig user "${user.name}" has both a client certificate and an exec plugin; keep one`);
    return { kind: 'exec', config: parseExecConfig(exec, user.name, user.dir) };
  }
  if (cert !== undefined && key !== undefined) return { kind: 'cert', cert, key };
  const tokenFile = stringField(user, 'tokenFile');
  if (tokenFile !== undefined) return { kind: 'tokenFile', path: resolve(user.dir, tokenFile) };
  const token = stringField(user, 'token');
  if (token !== undefined) return { kind: 'token', token };
  const username = stringField(user, 'username');
  const password = stringField(user, 'password');
  if (username !== undefined && password !== undefined) return { kind: 'basic', username, password };
  const provider = getOwn(user.value, 'auth-provider');
  if (isPlainObject(provider)) {
    const name = getOwn(provider, 'name');
    const config = getOwn(provider, 'config');
    const idToken = isPlainObject(config) ? getOwn(config, 'id-token') : undefined;
    if (name === 'oidc' && typeof idToken === 'string' && idToken !== '') return { kind: 'token', token: idToken };
    throw configError(
      `the kubeconfig user "${user.name}" uses auth-provider "${String(name)}", which sidecar-injector does not run (kubectl dropped auth providers for exec plugins: gke-gcloud-auth-plugin, kubelogin); switch context "${target.context}" to the provider's exec plugin`,
    );
  }
  return { kind: 'none' };
}

/** kubectl's `as`, `as-uid`, `as-groups` and `as-user-extra`. */
function impersonation(user: Entry): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = {};
  const as = stringField(user, 'as');
  if (as !== undefined) h['Impersonate-User'] = as;
  const uid = stringField(user, 'as-uid');
  if (uid !== undefined) h['Impersonate-Uid'] = uid;
  const groups = getOwn(user.value, 'as-groups');
  if (Array.isArray(groups) && groups.length > 0) h['Impersonate-Group'] = groups.map(String);
  const extra = getOwn(user.value, 'as-user-extra');
  if (isPlainObject(extra)) for (const [k, v] of Object.entries(extra)) if (Array.isArray(v)) h[`Impersonate-Extra-${encodeURIComponent(k)}`] = v.map(String);
  return h;
}

function stringField(entry: Entry, key: string): string | undefined {
  const v = getOwn(entry.value, key);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A PEM given inline (base64 `-data`) or as a file relative to its kubeconfig. */
function pemField(entry: Entry, dataKey: string, fileKey: string, kind: string): string | undefined {
  const data = stringField(entry, dataKey);
  if (data !== undefined) {
    const text = Buffer.from(data, 'base64').toString('utf8');
    if (!text.includes('-----BEGIN')) throw configError(`the kubeconfig ${kind} "${entry.name}": ${dataKey} is not base64 of a PEM`);
    return text;
  }
  const file = stringField(entry, fileKey);
  if (file === undefined) return undefined;
  const path = resolve(entry.dir, file);
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw configError(`the kubeconfig ${kind} "${entry.name}": cannot read ${fileKey} ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, err);
  }
}

async function readTokenFile(path: string, user: string): Promise<string> {
  let token: string;
  try {
    token = (await readFile(path, 'utf8')).trim();
  } catch (err) {
    throw configError(`the kubeconfig user "${user}": cannot read tokenFile ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, err);
  }
  if (token === '') throw configError(`the kubeconfig user "${user}": tokenFile ${path} is empty`);
  return token;
}
