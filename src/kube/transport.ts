/**
 * @module kube/transport
 * The one way the product talks to the Kubernetes API: JSON requests and watch streams over
 * `node:http(s)` to an Endpoint. Every request has a total deadline, a cap on the answer's
 * size and an AbortSignal; every failure is a KubeApiError with the status, reason and message.
 * A 401 tells the endpoint, so an exec plugin's expired token is fetched again on the next call.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { answerError, KubeApiError, noAnswerError } from './api-error.js';
import type { Endpoint } from './endpoint.js';

export interface CallOptions {
  signal?: AbortSignal;
  /** Total deadline of this call; default the transport's. */
  timeoutMs?: number;
  /** Refuse a larger answer; default the transport's. */
  maxResponseBytes?: number;
  /** Accept header (metadata-only reads ask for PartialObjectMetadata). */
  accept?: string;
}

export interface TransportOptions {
  userAgent: string;
  /** Default total deadline of a request. */
  timeoutMs: number;
  /** Default cap on an answer's size. */
  maxResponseBytes: number;
}

export interface StreamOptions {
  signal?: AbortSignal;
  accept?: string;
  /** No byte for this long: the connection is dead without having said so. */
  idleMs: number;
  /** Longest line accepted (one watch event). */
  maxLineBytes: number;
}

export interface Stream {
  /** Ends the stream; `ended` then resolves with null. */
  abort(): void;
  /** Null when the server closed the stream, an error when it broke. */
  ended: Promise<KubeApiError | null>;
}

export class Transport {
  constructor(
    readonly endpoint: Endpoint,
    readonly options: TransportOptions,
  ) {}

  /** One request; resolves with the parsed JSON of a 2xx answer (undefined for an empty one). */
  async call(method: string, path: string, body?: string, contentType?: string, options: CallOptions = {}): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const max = options.maxResponseBytes ?? this.options.maxResponseBytes;
    const { send, url, init } = await this.#prepare(method, path, options.accept, body, contentType);
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const fail = (err: KubeApiError) => finish(() => reject(err));
      const req = send(url, init, (res) => {
        // Decoded chunk by chunk into a string (the JS heap), not concatenated into one Buffer:
        // a list page is megabytes, and glibc keeps such freed blocks in the process for good.
        const decoder = new StringDecoder('utf8');
        let text = '';
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > max) {
            req.destroy();
            fail(noAnswerError(method, path, `the answer is larger than ${max} bytes`));
          } else text += decoder.write(chunk);
        });
        res.on('error', (err) => fail(noAnswerError(method, path, `the answer was cut off: ${err.message}`, err)));
        res.on('end', () => {
          text += decoder.end();
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) {
            if (status === 401) this.endpoint.refused();
            return fail(answerError(method, path, status, text));
          }
          try {
            const parsed: unknown = text === '' ? undefined : JSON.parse(text);
            finish(() => resolve(parsed));
          } catch (err) {
            fail(new KubeApiError(`${method} ${path}: the answer (HTTP ${status}) is not JSON`, { method, path, status, cause: err }));
          }
        });
      });
      const timer = setTimeout(() => {
        req.destroy();
        fail(noAnswerError(method, path, `no answer from the Kubernetes API within ${timeoutMs} ms`));
      }, timeoutMs);
      const onAbort = () => {
        req.destroy();
        fail(noAnswerError(method, path, 'aborted'));
      };
      // Listen for errors before anything can destroy the request.
      req.on('error', (err: NodeJS.ErrnoException) => fail(this.#unreachable(method, path, err)));
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      req.end(body);
    });
  }

  /**
   * A newline-delimited stream (a watch). Resolves once the server answered 200; rejects with
   * the KubeApiError of any other answer (a 410 at the start is a status, not a broken stream).
   */
  async stream(path: string, onLine: (line: string) => void, options: StreamOptions): Promise<Stream> {
    const { send, url, init } = await this.#prepare('GET', path, options.accept);
    return new Promise((resolve, reject) => {
      let answered = false;
      let aborted = false;
      let endedWith: (err: KubeApiError | null) => void = () => {};
      const ended = new Promise<KubeApiError | null>((r) => (endedWith = r));
      let done = false;
      const end = (err: KubeApiError | null) => {
        if (done) return;
        done = true;
        options.signal?.removeEventListener('abort', abort);
        endedWith(aborted ? null : err);
      };
      const abort = () => {
        aborted = true;
        req.destroy();
        if (!answered) reject(noAnswerError('GET', path, 'aborted'));
        end(null);
      };
      const req = send(url, { ...init, timeout: options.idleMs }, (res: IncomingMessage) => {
        answered = true;
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            if (text.length < 64 * 1024) text += c;
          });
          res.on('end', () => {
            if (status === 401) this.endpoint.refused();
            reject(answerError('GET', path, status, text));
          });
          res.on('error', (err) => reject(noAnswerError('GET', path, err.message, err)));
          return;
        }
        resolve({ abort, ended });
        const decoder = new StringDecoder('utf8');
        let buffer = '';
        res.on('data', (chunk: Buffer) => {
          buffer += decoder.write(chunk);
          let nl: number;
          while (!aborted && (nl = buffer.indexOf('\n')) >= 0) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            if (line.trim() !== '') onLine(line);
          }
          if (buffer.length > options.maxLineBytes) req.destroy(new Error(`a watch event is larger than ${options.maxLineBytes} bytes`));
        });
        res.on('end', () => end(null));
        res.on('error', (err) => end(noAnswerError('GET', path, err.message, err)));
        res.on('aborted', () => end(noAnswerError('GET', path, 'the apiserver closed the watch midway')));
      });
      req.on('timeout', () => req.destroy(new Error(`no data for ${options.idleMs / 1000} s`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (aborted) return;
        // Before the answer: the stream did not start. After it: it ended with an error.
        if (!answered) reject(this.#unreachable('GET', path, err));
        else end(noAnswerError('GET', path, err.message, err));
      });
      if (options.signal?.aborted) return abort();
      options.signal?.addEventListener('abort', abort, { once: true });
      req.end();
    });
  }

  async #prepare(method: string, path: string, accept = 'application/json', body?: string, contentType?: string) {
    if (!path.startsWith('/')) throw new KubeApiError(`API path must start with "/": ${path}`, { method, path });
    const { agent, headers: auth } = await this.endpoint.connection();
    const server = this.endpoint.server;
    const url = new URL(server.pathname.replace(/\/+$/, '') + path, server);
    const headers: Record<string, string | string[]> = { ...auth, Accept: accept, 'User-Agent': this.options.userAgent };
    if (body !== undefined) {
      headers['Content-Type'] = contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
    return { send, url, init: { method, headers, agent } };
  }

  #unreachable(method: string, path: string, err: NodeJS.ErrnoException): KubeApiError {
    const server = this.endpoint.server;
    return noAnswerError(method, path, `cannot reach the Kubernetes API at ${server.host}: ${err.code ?? err.message}`, err);
  }
}
