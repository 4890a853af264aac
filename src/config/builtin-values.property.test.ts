/**
 * Properties of the built-in values schema (issue 36, item 7): any values the schema takes load
 * without a warning and inject a sidecar whose images are HUB/IMAGE:TAG (or the whole image)
 * with no `<nil>` or `<no value>`; and breaking any one key the template reads fails the load
 * with SI_CONFIG_INVALID at that key, in the loader every command uses.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConfigError } from '../errors.js';
import { injectPod } from '../inject/index.js';
import { parseConfig } from '../profiles/index.js';
import { parseKubeYaml } from '../yaml/index.js';

const CONFIG = readFileSync(new URL('../../defaults/config.yaml', import.meta.url), 'utf8');
const DEFAULTS = parseKubeYaml(readFileSync(new URL('../../defaults/values.yaml', import.meta.url), 'utf8')).value as Values;
const POD = { metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };

type Values = { global: Record<string, unknown> & { proxy: Record<string, unknown>; proxy_init: Record<string, unknown> } };

const port = fc.integer({ min: 1, max: 65535 });
const asText = <T extends number>(a: fc.Arbitrary<T>) => fc.oneof(a, a.map(String));
const quantity = fc.constantFrom('100m', '1', '2Gi', '128Mi', '0.5', 1, 250);
const image = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,9}$/), fc.constantFrom('r.example/proxy:1', 'localhost:5000/p@sha256:abc'));

const validValues = fc
  .record({
    hub: fc.stringMatching(/^[a-z0-9]+(\.[a-z0-9]+)*(\/[a-z0-9_-]+){0,2}$/),
    tag: fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,15}$/),
    proxyImage: image,
    initImage: image,
    pullPolicy: fc.constantFrom('', 'Always', 'IfNotPresent', 'Never'),
    mode: fc.constantFrom('REDIRECT', 'TPROXY', 'NONE'),
    native: fc.boolean(),
    uid: fc.integer({ min: 1, max: 2147483647 }),
    statusPort: asText(fc.integer({ min: 0, max: 65535 })),
    metricsPort: asText(port),
    outbound: port,
    logLevel: fc.constantFrom('trace', 'debug', 'info', 'warning', 'error', 'critical', 'off', 'info,misc:error'),
    period: asText(fc.integer({ min: 0, max: 3600 })),
    cpu: quantity,
    memory: fc.oneof(quantity, fc.constant('')),
    initCpu: quantity,
    expiration: fc.integer({ min: 600, max: 86400 * 7 }),
  })
  .map((v) => {
    const values = structuredClone(DEFAULTS);
    const g = values.global;
    Object.assign(g, { hub: v.hub, tag: v.tag, imagePullPolicy: v.pullPolicy });
    Object.assign(g.proxy, {
      image: v.proxyImage,
      interceptionMode: v.mode,
      nativeSidecar: v.native,
      uid: v.uid,
      statusPort: v.statusPort,
      metricsPort: v.metricsPort,
      outboundCapturePort: v.outbound,
      logLevel: v.logLevel,
      readinessPeriodSeconds: v.period,
      tokenExpirationSeconds: v.expiration,
    });
    (g.proxy.resources as { requests: Record<string, unknown> }).requests = { cpu: v.cpu, memory: v.memory };
    (g.proxy_init.resources as { requests: Record<string, unknown> }).requests.cpu = v.initCpu;
    g.proxy_init.image = v.initImage;
    return { values, v };
  });

const imageOf = (hub: string, name: string, tag: string) => (name.includes('/') ? name : `${hub}/${name}:${tag}`);

describe('the built-in values schema', () => {
  it('any valid values load without warnings and inject images made of them, never <nil> or <no value>', () => {
    fc.assert(
      fc.property(validValues, ({ values, v }) => {
        const config = parseConfig(CONFIG, JSON.stringify(values));
        assert.deepEqual(config.warnings, []);
        const r = injectPod(POD, { namespace: 'shop', mode: 'manual' }, config);
        assert.equal(r.kind, 'injected');
        const spec = (r.kind === 'injected' ? r.pod.spec : {}) as Record<string, { name: string; image: string }[] | undefined>;
        const images = new Map([...(spec.initContainers ?? []), ...(spec.containers ?? [])].map((c) => [c.name, c.image]));
        assert.equal(images.get('sidecar-proxy'), imageOf(v.hub, v.proxyImage, v.tag));
        if (v.mode !== 'NONE') assert.equal(images.get('proxy-init'), imageOf(v.hub, v.initImage, v.tag));
        for (const i of images.values()) assert.ok(!i.includes('<nil>') && !i.includes('<no value>'), i);
      }),
      { numRuns: 120 },
    );
  });

  /** A key path and a value it must not take. */
  const broken: fc.Arbitrary<[readonly string[], unknown]> = fc.oneof<fc.Arbitrary<[readonly string[], unknown]>[]>(
    fc.tuple(
      fc.constant(['global', 'proxy', 'statusPort']),
      fc.oneof(fc.integer({ min: 65536 }), fc.integer({ max: -1 }), fc.constant('15021x'), fc.constant(true)),
    ),
    fc.tuple(fc.constant(['global', 'proxy', 'metricsPort']), fc.oneof(fc.constant(0), fc.constant(1.5), fc.constant('http'))),
    fc.tuple(fc.constant(['global', 'proxy', 'interceptionMode']), fc.oneof(fc.constantFrom('REDIRCT', 'redirect', '', 'IPTABLES'), fc.integer())),
    fc.tuple(fc.constant(['global', 'proxy', 'nativeSidecar']), fc.constantFrom('yes', 'True', 1, null)),
    fc.tuple(fc.constant(['global', 'hub']), fc.constantFrom('', 'a b', null, 3, 'docker.io/istio/')),
    fc.tuple(fc.constant(['global', 'tag']), fc.constantFrom('', 1.2, 'a:b', null)),
    fc.tuple(fc.constant(['global', 'proxy_init', 'image']), fc.constantFrom('', null, 7)),
    fc.tuple(fc.constant(['global', 'proxy', 'excludeInboundPorts']), fc.constantFrom('80,http', '70000', true)),
    fc.tuple(fc.constant(['global', 'proxy', 'resources', 'limits', 'memory']), fc.constantFrom('lots', '1Ki2', true)),
  );

  it('breaking any one key fails the load with SI_CONFIG_INVALID at that key', () => {
    fc.assert(
      fc.property(broken, ([path, value]) => {
        const values = structuredClone(DEFAULTS) as unknown as Record<string, unknown>;
        let at = values;
        for (const k of path.slice(0, -1)) at = at[k] as Record<string, unknown>;
        at[path.at(-1)!] = value;
        assert.throws(
          () => parseConfig(CONFIG, JSON.stringify(values)),
          (err: unknown) =>
            err instanceof ConfigError &&
            err.code === 'SI_CONFIG_INVALID' &&
            (err.details as { issues: { path: string }[] }).issues.some((i) => i.path === path.join('.')),
        );
      }),
      { numRuns: 150 },
    );
  });
});
