/**
 * @module kube/exec-credential
 * A kubeconfig `exec` credential plugin (`gke-gcloud-auth-plugin`, `aws eks get-token`,
 * `kubelogin`), run as client-go runs it: the kubeconfig's `env` added to ours,
 * `KUBERNETES_EXEC_INFO` set to the request, the plugin's stderr passed through to ours (where
 * it says "log in first"), and its stdout read as an `ExecCredential` of the same apiVersion.
 * The answer (a token, or a client certificate and key) is kept until its
 * `expirationTimestamp`, and dropped when the apiserver refuses it (401).
 */
import { spawn } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import { ClusterError } from '../errors.js';
import { getOwn, isPlainObject } from '../util/json.js';

export interface ExecConfig {
  apiVersion: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
  installHint: string | undefined;
  provideClusterInfo: boolean;
  interactiveMode: string | undefined;
}

export interface ExecResult {
  token?: string;
  clientCertificateData?: string;
  clientKeyData?: string;
  /** Milliseconds since the epoch; undefined: good until refused. */
  expiresAt?: number;
}

const API_VERSIONS = new Set(['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']);
/** A plugin that neither answers nor fails in this long is hung (client-go has no limit; a server must not wait forever). */
const EXEC_DEADLINE_MS = 60_000;
const MAX_OUTPUT = 1024 * 1024;

const configError = (message: string) => new ClusterError('SI_CLUSTER_CONFIG', message);

/** The `user.exec` stanza, validated; `dir` resolves a relative command with a slash, as kubectl does. */
export function parseExecConfig(value: unknown, user: string, dir: string): ExecConfig {
  const where = `user "${user}" exec`;
  if (!isPlainObject(value)) throw configError(`${where}: not a mapping`);
  const apiVersion = getOwn(value, 'apiVersion');
  if (typeof apiVersion !== 'string' || !API_VERSIONS.has(apiVersion))
    throw configError(`${where}: apiVersion ${JSON.stringify(apiVersion ?? null)} is not one of ${[...API_VERSIONS].join(', ')}`);
  let command = getOwn(value, 'command');
  if (typeof command !== 'string' || command === '') throw configError(`${where}: no command`);
  if (command.includes('/') && !isAbsolute(command)) command = resolve(dir, command);
  const args = getOwn(value, 'args') ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw configError(`${where}: args is not a list of strings`);
  const env = getOwn(value, 'env') ?? [];
  if (!Array.isArray(env) || !env.every((e) => isPlainObject(e) && typeof getOwn(e, 'name') === 'string' && typeof getOwn(e, 'value') === 'string'))
    throw configError(`${where}: env is not a list of {name, value} strings`);
  const installHint = getOwn(value, 'installHint');
  const interactiveMode = getOwn(value, 'interactiveMode');
  return {
    apiVersion,
    command: command as string,
    args: args as string[],
    env: env as { name: string; value: string }[],
    installHint: typeof installHint === 'string' ? installHint : undefined,
    provideClusterInfo: getOwn(value, 'provideClusterInfo') === true,
    interactiveMode: typeof interactiveMode === 'string' ? interactiveMode : undefined,
  };
}

/** Run the plugin once and read its ExecCredential. `cluster` is sent when the stanza asks for it. */
export function runExecPlugin(config: ExecConfig, cluster: Record<string, unknown>): Promise<ExecResult> {
  if (config.interactiveMode === 'Always')
    return Promise.reject(configError(`the exec plugin ${config.command} needs a terminal (interactiveMode: Always), which this command does not give it`));
  const info = { apiVersion: config.apiVersion, kind: 'ExecCredential', spec: { interactive: false, ...(config.provideClusterInfo ? { cluster } : {}) } };
  const env: Record<string, string | undefined> = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
  for (const { name, value } of config.env) env[name] = value;
  return new Promise((resolvePromise, reject) => {
    const child = spawn(config.command, config.args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let settled = false;
    const fail = (message: string, cause?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new ClusterError('SI_CLUSTER_CONFIG', `the exec credential plugin ${config.command}: ${message}`, { cause }));
    };
    const timer = setTimeout(() => fail(`no answer within ${EXEC_DEADLINE_MS / 1000} s`), EXEC_DEADLINE_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
      if (out.length > MAX_OUTPUT) fail(`wrote more than ${MAX_OUTPUT} bytes`);
    });
    child.on('error', (err: NodeJS.ErrnoException) =>
      fail(err.code === 'ENOENT' ? `not found${config.installHint ? `; ${config.installHint.trim()}` : ' (is it installed and on PATH?)'}` : err.message, err),
    );
    child.on('close', (code, signal) => {
      if (settled) return;
      if (code !== 0) return fail(`exited with ${signal ?? `status ${code}`} (its messages, if any, are above)`);
      try {
        const result = readExecCredential(out, config.apiVersion);
        settled = true;
        clearTimeout(timer);
        resolvePromise(result);
      } catch (err) {
        fail((err as Error).message, err);
      }
    });
  });
}

function readExecCredential(text: string, apiVersion: string): ExecResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('its output is not an ExecCredential in JSON');
  }
  if (!isPlainObject(value) || getOwn(value, 'kind') !== 'ExecCredential') throw new Error('its output is not an ExecCredential');
  if (getOwn(value, 'apiVersion') !== apiVersion)
    throw new Error(`it answered apiVersion ${String(getOwn(value, 'apiVersion'))}, not the ${apiVersion} it was asked for`);
  const status = getOwn(value, 'status');
  if (!isPlainObject(status)) throw new Error('its ExecCredential has no status');
  const str = (key: string): string | undefined => {
    const v = getOwn(status, key);
    return typeof v === 'string' && v !== '' ? v : undefined;
  };
  const token = str('token');
  const clientCertificateData = str('clientCertificateData');
  const clientKeyData = str('clientKeyData');
  if ((clientCertificateData === undefined) !== (clientKeyData === undefined))
    throw new Error('its ExecCredential has a client certificate without a key, or a key without one');
  if (token === undefined && clientCertificateData === undefined) throw new Error('its ExecCredential has neither a token nor a client certificate');
  const expiry = str('expirationTimestamp');
  const expiresAt = expiry === undefined ? undefined : Date.parse(expiry);
  if (expiresAt !== undefined && Number.isNaN(expiresAt)) throw new Error(`its expirationTimestamp "${expiry}" is not a time`);
  return { token, clientCertificateData, clientKeyData, expiresAt };
}
