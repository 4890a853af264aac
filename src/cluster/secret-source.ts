/**
 * @module cluster/secret-source
 * The serving certificate read from a Secret through the API (`serve --tls-secret`), not from a
 * volume: a pod that mounts a missing Secret waits in ContainerCreating with nothing but a
 * FailedMount event, while this reports why it cannot serve (`/readyz`, log, Event) and starts
 * serving as soon as the Secret is there. With `provision` it also makes and renews the
 * certificates (certs/provision) and writes them back under the resourceVersion it read: of
 * replicas racing, one write lands (the others get 409 and read it). Polling, not watching: one
 * GET of one object per period is nothing for the apiserver, and it needs neither list nor watch.
 */
import { createHash } from 'node:crypto';
import { CA_CERT_FILE, TLS_CERT_FILE, TLS_KEY_FILE } from '../certs/constants.js';
import { planProvision, PROVISIONED_KEYS, type ProvisionPolicy, type ProvisionStep } from '../certs/provision.js';
import type { KeyPairPem } from '../reload/sources.js';
import { toInjectorError } from '../errors.js';
import { isConflict, KubeApiError } from '../kube/api-error.js';
import type { CallOptions as RequestOptions } from '../kube/transport.js';
import { parseSecret, provisionedSecret, provisionedUpdate, secretPath, secretsPath, type LiveSecret, type SecretRef } from './tls-secret.js';
import { grantText, tlsSecretRules } from '../kube/rbac-rules.js';

export interface SecretApi {
  get(path: string, options?: RequestOptions): Promise<unknown>;
  put(path: string, body: unknown, options?: RequestOptions): Promise<unknown>;
  post(path: string, body: unknown, options?: RequestOptions): Promise<unknown>;
}

type SecretProblemKind = 'missing' | 'forbidden' | 'incomplete' | 'invalid' | 'unreachable';

export interface SecretProblem {
  kind: SecretProblemKind;
  message: string;
}

export type SecretSourceEvent =
  | { type: 'wrote'; steps: ProvisionStep[]; why: string[] }
  | { type: 'conflict' }
  | { type: 'foreign'; reason: string }
  | { type: 'problem'; problem: SecretProblem }
  | { type: 'resolved' };

export interface SecretSourceOptions {
  api: SecretApi;
  secret: SecretRef;
  /** Make and renew the certificates in the Secret. */
  provision?: ProvisionPolicy;
  /** The Secret must carry ca.crt (the caBundle reconciler needs the CA). */
  requireCa?: boolean;
  resyncMs: number;
  /** Since when the caBundle has trusted a CA (fingerprint): when a staged CA may start signing. */
  trustedSince?: (fingerprint: string) => Date | undefined;
  now?: () => Date;
  onEvent?: (event: SecretSourceEvent) => void;
}

export interface SecretSourceStatus {
  secret: string;
  mode: 'provision' | 'existing';
  resourceVersion?: string;
  lastReadAt?: string;
  writes: number;
  conflicts: number;
  /** Why the Secret's certificate cannot be served now (or cannot be kept up to date). */
  problem?: string;
}

/** Hand a key pair to the server; throws (with the reason) when it refuses it. */
export type OfferPair = (pair: KeyPairPem) => void;

const CONFLICT_RETRIES = 5;

export class SecretSource {
  readonly #o: SecretSourceOptions;
  readonly #path: string;
  readonly #where: string;
  readonly #now: () => Date;
  #offer: OfferPair | undefined;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #abort = new AbortController();
  #stopped = false;
  #offered = '';
  #problem: SecretProblem | undefined;
  #foreign = '';
  readonly #status: SecretSourceStatus;

  constructor(options: SecretSourceOptions) {
    this.#o = options;
    this.#path = secretPath(options.secret);
    this.#where = `Secret ${options.secret.namespace}/${options.secret.name}`;
    this.#now = options.now ?? (() => new Date());
    this.#status = {
      secret: `${options.secret.namespace}/${options.secret.name}`,
      mode: options.provision ? 'provision' : 'existing',
      writes: 0,
      conflicts: 0,
    };
  }

  /** Read now, then every `resyncMs`; each usable, changed pair goes to `offer`. */
  start(offer: OfferPair): void {
    this.#offer = offer;
    void this.checkNow();
  }

  /** One read (and write, when provisioning) now; resolves when done. Never rejects. */
  checkNow(): Promise<void> {
    this.#running ??= this.#check().finally(() => {
      this.#running = undefined;
      this.#schedule();
    });
    return this.#running;
  }

  status(): SecretSourceStatus {
    return { ...this.#status, ...(this.#problem ? { problem: this.#problem.message } : {}) };
  }

  get problem(): SecretProblem | undefined {
    return this.#problem;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#running;
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.checkNow(), this.#o.resyncMs);
    this.#timer.unref();
  }

  async #check(): Promise<void> {
    if (this.#stopped) return;
    try {
      const live = await this.#sync();
      if (live === undefined) return;
      this.#serve(live);
    } catch (err) {
      if (!this.#stopped) this.#report(this.#explain(err));
    }
  }

  /** Read the Secret and, when provisioning, bring it up to date. Undefined: a problem was reported. */
  async #sync(): Promise<LiveSecret | undefined> {
    const signal = this.#abort.signal;
    for (let attempt = 0; ; attempt++) {
      let live: LiveSecret;
      try {
        live = parseSecret(await this.#o.api.get(this.#path, { signal }), this.#o.secret);
      } catch (err) {
        if (!(err instanceof KubeApiError) || err.status !== 404) throw err;
        if (this.#o.provision === undefined) return this.#missing();
        // Created empty by the install; gone now. Try to create it (RBAC usually says no: create cannot be limited to one name).
        const created = await this.#create();
        if (created === 'conflict') continue;
        return created;
      }
      this.#status.resourceVersion = live.resourceVersion;
      this.#status.lastReadAt = this.#now().toISOString();
      if (this.#o.provision === undefined) return live;
      const plan = await planProvision(
        { data: live.data, managed: live.managed, now: this.#now(), trustedSince: this.#o.trustedSince ?? (() => undefined) },
        this.#o.provision,
      );
      if (plan.action === 'foreign') {
        if (this.#foreign !== plan.reason) this.#emit({ type: 'foreign', reason: plan.reason });
        this.#foreign = plan.reason;
        return live;
      }
      if (plan.action === 'keep') return live;
      try {
        const written = await this.#o.api.put(this.#path, provisionedUpdate(live, plan.data, PROVISIONED_KEYS, this.#note(plan.steps)), { signal });
        this.#status.writes++;
        this.#emit({ type: 'wrote', steps: plan.steps, why: plan.why });
        return parseSecret(written, this.#o.secret);
      } catch (err) {
        if (!isConflict(err) || attempt >= CONFLICT_RETRIES) throw err;
        // Another replica wrote first: read what it wrote.
        this.#status.conflicts++;
        this.#emit({ type: 'conflict' });
      }
    }
  }

  async #create(): Promise<LiveSecret | undefined | 'conflict'> {
    const plan = await planProvision({ data: {}, managed: false, now: this.#now(), trustedSince: () => undefined }, this.#o.provision!);
    if (plan.action !== 'write') return undefined;
    try {
      const created = await this.#o.api.post(secretsPath(this.#o.secret.namespace), provisionedSecret(this.#o.secret, plan.data, this.#note(plan.steps)), {
        signal: this.#abort.signal,
      });
      this.#status.writes++;
      this.#emit({ type: 'wrote', steps: plan.steps, why: plan.why });
      return parseSecret(created, this.#o.secret);
    } catch (err) {
      if (err instanceof KubeApiError && err.status === 409) return 'conflict';
      if (err instanceof KubeApiError && err.status === 403) {
        this.#report({
          kind: 'missing',
          message: `${this.#where} does not exist and the injector may not create it (its Role allows get and update on that one name only). Re-apply the install, which creates it empty (helm upgrade, or kubectl apply -f the manifests), or: kubectl -n ${this.#o.secret.namespace} create secret generic ${this.#o.secret.name}`,
        });
        return undefined;
      }
      throw err;
    }
  }

  #missing(): undefined {
    this.#report({
      kind: 'missing',
      message: `${this.#where} does not exist. Create it with tls.crt, tls.key and ca.crt for the Service's DNS name, or let the injector make its own certificate (Helm: unset tls.existingSecret; manifests: drop --existing-secret)`,
    });
    return undefined;
  }

  #serve(live: LiveSecret): void {
    const certPem = live.data[TLS_CERT_FILE] ?? '';
    const keyPem = live.data[TLS_KEY_FILE] ?? '';
    const caPem = live.data[CA_CERT_FILE];
    const absent = [certPem.trim() === '' && TLS_CERT_FILE, keyPem.trim() === '' && TLS_KEY_FILE, this.#o.requireCa && !caPem?.trim() && CA_CERT_FILE].filter(
      Boolean,
    );
    if (absent.length > 0) {
      this.#report({
        kind: 'incomplete',
        message: `${this.#where} has no ${absent.join(', ')}${this.#o.requireCa && absent.includes(CA_CERT_FILE) ? ' (the caBundle is set from ca.crt)' : ''}`,
      });
      return;
    }
    const hash = createHash('sha256')
      .update(`${certPem}\0${keyPem}\0${caPem ?? ''}`)
      .digest('hex');
    if (hash !== this.#offered) {
      try {
        this.#offer?.({ certPem, keyPem, ...(caPem?.trim() ? { caPem } : {}) });
      } catch (err) {
        this.#report({ kind: 'invalid', message: `${this.#where}: ${toInjectorError(err).message}` });
        return;
      }
      this.#offered = hash;
    }
    this.#report(undefined);
  }

  #explain(err: unknown): SecretProblem {
    if (err instanceof KubeApiError && err.status === 403) {
      const verb = err.details?.method === 'GET' ? 'read' : 'write';
      return {
        kind: 'forbidden',
        message: `the injector may not ${verb} ${this.#where} (${err.apiMessage ?? 'Forbidden'}): grant its service account ${grantText(tlsSecretRules(this.#o.secret.name, this.#o.provision !== undefined))} in ${this.#o.secret.namespace} (the Role the install writes)`,
      };
    }
    return { kind: 'unreachable', message: `${this.#where}: ${toInjectorError(err).message}` };
  }

  // One event per distinct problem (it repeats every period while it lasts), and one when it clears.
  #report(problem: SecretProblem | undefined): void {
    const before = this.#problem;
    this.#problem = problem;
    if (problem !== undefined && problem.message !== before?.message) this.#emit({ type: 'problem', problem });
    else if (problem === undefined && before !== undefined) this.#emit({ type: 'resolved' });
  }

  #note(steps: readonly string[]): string {
    return `${this.#now().toISOString()} ${steps.join(',')}`;
  }

  #emit(event: SecretSourceEvent): void {
    try {
      this.#o.onEvent?.(event);
    } catch {
      // A faulty listener must not stop the certificate from being kept up to date.
    }
  }
}
