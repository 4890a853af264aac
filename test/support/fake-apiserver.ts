/**
 * @module test/support/fake-apiserver
 * An in-process HTTPS stand-in for the Kubernetes API, enough for MutatingWebhookConfigurations
 * (GET and PATCH by name). It is strict on purpose: every request's method, path, bearer token,
 * Accept and Content-Type headers and body are checked, and refusals are `Status` objects with
 * the codes a real apiserver uses (401, 404, 405, 409 on a stale resourceVersion, 415 for a
 * patch type it does not take, 422 for a JSON patch that does not apply, e.g. a failed `test`).
 * Tests can rotate tokens, overwrite objects behind the client's back (drift), race a write
 * before the next PATCH (conflict), fail requests, and stop/restart the listener (outage).
 * Known gap: a real apiserver also takes strategic-merge and apply patches; this one answers 415.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import jsonpatch from 'fast-json-patch';
import { generateCA, issueServingCert } from '../../src/certs/create-certs.js';
import { cloneJson, deepEqual, isPlainObject, type JsonObject, type JsonValue } from '../../src/util/json.js';

const RESOURCE = 'mutatingwebhookconfigurations';
const GROUP = 'admissionregistration.k8s.io';
const ROUTE = new RegExp(`^/apis/${GROUP.replace(/\./g, '\\.')}/v1/${RESOURCE}/([^/]+)$`);
const MAX_BODY = 3 * 1024 * 1024;

export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  authorization: string | undefined;
  contentType: string | undefined;
  accept: string | undefined;
  userAgent: string | undefined;
  rawBody: string;
  /** The body parsed as JSON, or undefined when empty or not JSON. */
  body: unknown;
  /** The status code the fake answered with. */
  status: number;
}

class HttpStatus extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: JsonObject,
  ) {
    super(message);
  }
}

export class FakeApiServer {
  readonly caPem: string;
  readonly requests: RecordedRequest[] = [];
  readonly tokens = new Set<string>();
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #objects = new Map<string, JsonObject>();
  #port = 0;
  #resourceVersion = 1000;
  #conflicts = 0;
  #failures: { count: number; status: number } = { count: 0, status: 503 };

  private constructor(tls: { certPem: string; keyPem: string; caPem: string }, tokens: readonly string[]) {
    this.caPem = tls.caPem;
    for (const t of tokens) this.tokens.add(t);
    this.#server = createServer({ cert: tls.certPem, key: tls.keyPem, minVersion: 'TLSv1.2' }, (req, res) => void this.#handle(req, res));
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  /** Start on 127.0.0.1, port 0, with its own CA (from our certs module). */
  static async start(options: { tokens?: readonly string[] } = {}): Promise<FakeApiServer> {
    const ca = await generateCA({ commonName: 'fake-apiserver-ca' });
    const leaf = await issueServingCert(ca, { dnsNames: ['localhost', 'kubernetes.default.svc'], ipAddresses: ['127.0.0.1'] });
    const fake = new FakeApiServer(leaf, options.tokens ?? ['test-token']);
    await fake.#listen(0);
    return fake;
  }

  get port(): number {
    return this.#port;
  }

  /** The variables kubelet would set for a pod talking to this server. */
  env(): Record<string, string> {
    return { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(this.#port) };
  }

  /** Write `token`, `ca.crt` and `namespace` into `dir`, like the projected service account volume. */
  async writeServiceAccount(dir: string, token: string, namespace = 'injector-system'): Promise<void> {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'token'), token);
    await writeFile(join(dir, 'ca.crt'), this.caPem);
    await writeFile(join(dir, 'namespace'), namespace);
  }

  /** Store an object as if created: uid, resourceVersion and generation are set. */
  addWebhookConfiguration(object: JsonObject): JsonObject {
    const stored = cloneJson(object) as JsonObject;
    const metadata = (isPlainObject(stored.metadata) ? stored.metadata : (stored.metadata = {})) as JsonObject;
    if (typeof metadata.name !== 'string') throw new Error('fake apiserver: metadata.name is required');
    metadata.uid = `uid-${metadata.name}`;
    metadata.generation = 1;
    metadata.resourceVersion = this.#nextVersion();
    stored.apiVersion = `${GROUP}/v1`;
    stored.kind = 'MutatingWebhookConfiguration';
    this.#objects.set(metadata.name, stored);
    return cloneJson(stored) as JsonObject;
  }

  getWebhookConfiguration(name: string): JsonObject | undefined {
    const object = this.#objects.get(name);
    return object && (cloneJson(object) as JsonObject);
  }

  /** Another client's write (e.g. `kubectl apply`): mutate the object, bump its resourceVersion. */
  update(name: string, mutate: (object: JsonObject) => void): void {
    const object = this.#objects.get(name);
    if (!object) throw new Error(`fake apiserver: no object ${name}`);
    mutate(object);
    (object.metadata as JsonObject).resourceVersion = this.#nextVersion();
  }

  /** Drift: set (or, with undefined, remove) one webhook's caBundle behind the client's back. */
  setCaBundle(name: string, webhookName: string, caBundle: string | undefined): void {
    this.update(name, (object) => {
      const webhook = (object.webhooks as JsonObject[]).find((w) => w.name === webhookName);
      if (!webhook) throw new Error(`fake apiserver: no webhook ${webhookName}`);
      const clientConfig = webhook.clientConfig as JsonObject;
      if (caBundle === undefined) delete clientConfig.caBundle;
      else clientConfig.caBundle = caBundle;
    });
  }

  /** Before each of the next `count` PATCHes, another writer touches the object: the PATCH's resourceVersion is stale. */
  conflictOnNextPatches(count: number): void {
    this.#conflicts = count;
  }

  /** Answer the next `count` requests with `status` (default 503) before any other check. */
  failNextRequests(count: number, status = 503): void {
    this.#failures = { count, status };
  }

  patches(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'PATCH');
  }

  /** Stop listening and cut open connections: clients see connection refused. */
  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Listen again on the same port after `stop()`. */
  async restart(): Promise<void> {
    await this.#listen(this.#port);
  }

  async #listen(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => {
        this.#server.off('error', reject);
        resolve();
      });
    });
    this.#port = (this.#server.address() as AddressInfo).port;
  }

  #nextVersion(): string {
    return String(++this.#resourceVersion);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [path, query = ''] = (req.url ?? '/').split('?', 2);
    const record: RecordedRequest = {
      method: req.method ?? '',
      path,
      query,
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      accept: req.headers.accept,
      userAgent: req.headers['user-agent'],
      rawBody: '',
      body: undefined,
      status: 0,
    };
    this.requests.push(record);
    let status = 500;
    let payload: unknown;
    try {
      record.rawBody = await readBody(req);
      try {
        record.body = record.rawBody === '' ? undefined : JSON.parse(record.rawBody);
      } catch {
        record.body = undefined;
      }
      payload = this.#route(req, path, record);
      status = 200;
    } catch (err) {
      const e = err instanceof HttpStatus ? err : new HttpStatus(500, 'InternalError', `fake apiserver bug: ${(err as Error).message}`);
      status = e.code;
      payload = {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: e.message,
        reason: e.reason,
        ...(e.details ? { details: e.details } : {}),
        code: e.code,
      };
    }
    record.status = status;
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  #route(req: IncomingMessage, path: string, record: RecordedRequest): JsonObject {
    if (this.#failures.count > 0) {
      this.#failures.count--;
      throw new HttpStatus(
        this.#failures.status,
        this.#failures.status === 503 ? 'ServiceUnavailable' : 'InternalError',
        'the server is currently unable to handle the request',
      );
    }
    const auth = /^Bearer (\S+)$/.exec(record.authorization ?? '');
    if (!auth || !this.tokens.has(auth[1])) throw new HttpStatus(401, 'Unauthorized', 'Unauthorized');
    const match = ROUTE.exec(path);
    if (!match) throw new HttpStatus(404, 'NotFound', 'the server could not find the requested resource');
    if (record.accept !== undefined && !/application\/json|\*\/\*/.test(record.accept)) {
      throw new HttpStatus(406, 'NotAcceptable', `only the following media types are accepted: application/json`);
    }
    const name = decodeURIComponent(match[1]);
    const notFound = () => new HttpStatus(404, 'NotFound', `${RESOURCE}.${GROUP} "${name}" not found`, { name, group: GROUP, kind: RESOURCE });
    if (req.method === 'GET') {
      if (record.rawBody !== '') throw new HttpStatus(400, 'BadRequest', 'a GET request must not have a body');
      const object = this.#objects.get(name);
      if (!object) throw notFound();
      return cloneJson(object) as JsonObject;
    }
    if (req.method !== 'PATCH') throw new HttpStatus(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`);

    const mediaType = (record.contentType ?? '').split(';')[0].trim().toLowerCase();
    if (mediaType !== 'application/json-patch+json' && mediaType !== 'application/merge-patch+json') {
      throw new HttpStatus(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json`,
      );
    }
    if (record.body === undefined) throw new HttpStatus(400, 'BadRequest', `error decoding patch: the body is empty or not JSON`);
    if (this.#conflicts > 0 && this.#objects.has(name)) {
      this.#conflicts--;
      this.update(name, (o) => {
        const metadata = o.metadata as JsonObject;
        metadata.annotations = {
          ...(isPlainObject(metadata.annotations) ? (metadata.annotations as JsonObject) : {}),
          'fake.example/touched': String(this.#resourceVersion),
        };
      });
    }
    const current = this.#objects.get(name);
    if (!current) throw notFound();
    const patched = mediaType === 'application/json-patch+json' ? applyJsonPatch(current, record.body) : applyMergePatch(current, record.body);
    return this.#store(name, current, patched);
  }

  #store(name: string, current: JsonObject, patched: JsonValue): JsonObject {
    if (!isPlainObject(patched)) throw new HttpStatus(422, 'Invalid', 'the patched object is not an object');
    const metadata = patched.metadata;
    if (!isPlainObject(metadata) || metadata.name !== name) {
      throw new HttpStatus(
        400,
        'BadRequest',
        `the name of the object (${isPlainObject(metadata) ? String(metadata.name) : ''}) does not match the name on the URL (${name})`,
      );
    }
    const currentMeta = current.metadata as JsonObject;
    const rv = metadata.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== currentMeta.resourceVersion) {
      throw new HttpStatus(
        409,
        'Conflict',
        `Operation cannot be fulfilled on ${RESOURCE}.${GROUP} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        { name, group: GROUP, kind: RESOURCE },
      );
    }
    validateWebhooks(patched.webhooks);
    const stored = patched as JsonObject;
    const storedMeta = stored.metadata as JsonObject;
    storedMeta.uid = currentMeta.uid;
    storedMeta.generation = deepEqual(stored.webhooks, current.webhooks) ? currentMeta.generation : Number(currentMeta.generation) + 1;
    storedMeta.resourceVersion = this.#nextVersion();
    this.#objects.set(name, stored);
    return cloneJson(stored) as JsonObject;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new HttpStatus(413, 'RequestEntityTooLarge', 'the request is too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function applyJsonPatch(current: JsonObject, body: unknown): JsonValue {
  if (!Array.isArray(body) || !body.every((op) => isPlainObject(op) && typeof op.op === 'string' && typeof op.path === 'string')) {
    throw new HttpStatus(400, 'BadRequest', 'error decoding patch: a JSON patch must be an array of operations with "op" and "path"');
  }
  try {
    return jsonpatch.applyPatch(cloneJson(current), body as jsonpatch.Operation[], true, true).newDocument as JsonValue;
  } catch (err) {
    const e = err as { name?: string; index?: number; operation?: { op?: string; path?: string } };
    const op = e.operation ?? (body[e.index ?? 0] as { op?: string; path?: string });
    // Messages follow the Go json-patch library the apiserver uses.
    if (e.name === 'TEST_OPERATION_FAILED') throw new HttpStatus(422, 'Invalid', `testing value ${op.path} failed: test failed`);
    if (e.name === 'OPERATION_OP_INVALID' || e.name === 'OPERATION_VALUE_REQUIRED' || e.name === 'OPERATION_PATH_INVALID') {
      throw new HttpStatus(400, 'BadRequest', `invalid JSON patch operation ${JSON.stringify(op)}`);
    }
    throw new HttpStatus(422, 'Invalid', `${op.op} operation does not apply: doc is missing path: "${op.path}": missing value`);
  }
}

/** RFC 7386 JSON merge patch. */
function applyMergePatch(target: JsonValue, patch: unknown): JsonValue {
  if (!isPlainObject(patch)) return cloneJson(patch as JsonValue);
  const result: JsonObject = isPlainObject(target) ? (cloneJson(target) as JsonObject) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(Object.hasOwn(result, key) ? result[key] : null, value);
  }
  return result;
}

function validateWebhooks(webhooks: JsonValue | undefined): void {
  if (webhooks === undefined) return;
  const invalid = (message: string) => new HttpStatus(422, 'Invalid', `MutatingWebhookConfiguration is invalid: ${message}`);
  if (!Array.isArray(webhooks)) throw invalid('webhooks: must be a list');
  const names = new Set<string>();
  webhooks.forEach((w, i) => {
    if (!isPlainObject(w) || typeof w.name !== 'string' || w.name === '') throw invalid(`webhooks[${i}].name: Required value`);
    if (names.has(w.name)) throw invalid(`webhooks[${i}].name: Duplicate value: "${w.name}"`);
    names.add(w.name);
    const cc = w.clientConfig;
    if (!isPlainObject(cc)) throw invalid(`webhooks[${i}].clientConfig: Required value`);
    const bundle = cc.caBundle;
    if (bundle !== undefined && (typeof bundle !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(bundle) || bundle.length % 4 !== 0)) {
      throw invalid(`webhooks[${i}].clientConfig.caBundle: illegal base64 data`);
    }
  });
}
