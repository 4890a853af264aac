/**
 * @module kube/proxy-agent
 * A kubeconfig cluster's `proxy-url` (http:// or https://), as client-go uses it: each TLS
 * connection to the apiserver goes through an HTTP CONNECT tunnel opened on the proxy, with the
 * proxy URL's user and password as Basic `Proxy-Authorization`. TLS then runs end to end with
 * the apiserver, so the kubeconfig's CA, client certificate and server name apply unchanged.
 */
import { request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions, request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

export class ProxyAgent extends HttpsAgent {
  readonly #proxy: URL;

  constructor(proxy: URL, options: AgentOptions) {
    super(options);
    this.#proxy = proxy;
  }

  // Node's Agent takes a socket from the callback when createConnection returns nothing.
  override createConnection(options: ConnectionOptions & { host?: string; port?: number }, callback: (err: Error | null, socket?: Duplex) => void): undefined {
    const proxy = this.#proxy;
    const target = `${options.host?.includes(':') ? `[${options.host}]` : options.host}:${options.port}`;
    const headers: Record<string, string> = { Host: target };
    if (proxy.username !== '')
      headers['Proxy-Authorization'] = `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
    const send = proxy.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({
      host: proxy.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: target,
      headers,
      agent: false,
    });
    let done = false;
    const finish = (err: Error | null, socket?: Duplex) => {
      if (done) return;
      done = true;
      callback(err, socket);
    };
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        return finish(new Error(`the proxy ${proxy.host} answered ${res.statusCode} to CONNECT ${target}`));
      }
      finish(null, tlsConnect({ ...options, socket, servername: options.servername ?? options.host }));
    });
    req.once('error', (err) => finish(new Error(`cannot reach the proxy ${proxy.host}: ${(err as NodeJS.ErrnoException).code ?? err.message}`)));
    req.end();
    return undefined;
  }
}
