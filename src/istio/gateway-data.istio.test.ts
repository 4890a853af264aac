/**
 * Istio's gateway deployment templates rendered by us and by Istio's own template code
 * (e2e/build/istio/gateway-render: Istio's pkg/kube/inject parses the templates, Go's
 * text/template runs them on the controller's struct shapes), from the live Istio peer's config
 * files: the output must be byte for byte the same, for every managed class and several
 * Gateways, under the peer's values and under values that steer the templates (network,
 * variant, revision, cluster name). Skipped when e2e/build/istio.sh has not built the peer.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { representativeGateways } from '../check/gateways.js';
import { renderedProblems } from '../check/gateway-check.js';
import type { LoadedConfig } from '../config/types.js';
import { parseConfig } from '../profiles/index.js';
import type { JsonObject } from '../util/json.js';
import { findIstioPeer, istioPeerDir, type IstioPeer } from '../../test/support/istio-peer.js';
import { GATEWAY_CLASSES, gatewayDerived, gatewayTemplateData, type GatewayClass } from './gateway-data.js';
import { meshSettings } from './mesh-config.js';

const peer = findIstioPeer();
const skip =
  peer === undefined || !existsSync(peer.gatewayRender) ? `Istio peer or its gateway renderer not built (${istioPeerDir()}); run e2e/build/istio.sh` : false;
const work = mkdtempSync(join(tmpdir(), 'si-gateway-render-'));
after(() => rmSync(work, { recursive: true, force: true }));

interface Variant {
  name: string;
  ours: LoadedConfig;
  valuesFile: string;
  configFile: string;
}

/** Our config and the Go renderer's values file from the peer's files, with `change` applied to the values. */
function variant(p: IstioPeer, name: string, change: (values: JsonObject) => void): Variant {
  const values = JSON.parse(readFileSync(p.values, 'utf8')) as JsonObject;
  change(values);
  const valuesFile = join(work, `${name}.json`);
  writeFileSync(valuesFile, JSON.stringify(values));
  const mesh = (parse(readFileSync(p.mesh, 'utf8')) ?? {}) as JsonObject;
  // In front: the file ends inside its last template, with no line break, which must stay so.
  const configFile = p.injectConfig;
  const text = readFileSync(configFile, 'utf8');
  const ours = parseConfig(`nativeSidecars: true\n${text}`, JSON.stringify({ ...values, meshConfig: mesh }), `istio-peer ${name}`);
  return { name, ours, valuesFile, configFile };
}

/** Gateways beyond the check's own: addresses, an ambient label, a proxy image type, listener names that sanitise alike. */
function moreGateways(cls: GatewayClass): JsonObject[] {
  const base = representativeGateways(cls)[0].gateway;
  const meta = base.metadata as JsonObject;
  const spec = base.spec as JsonObject;
  return [
    {
      ...base,
      metadata: { ...meta, name: 'edge', labels: { 'istio.io/dataplane-mode': 'ambient' }, annotations: { 'sidecar.istio.io/proxyImageType': 'debug' } },
      spec: {
        ...spec,
        addresses: [{ type: 'IPAddress', value: '10.0.0.7' }],
        listeners: [
          { name: 'a.b', port: 8080, protocol: 'HTTP' },
          { name: 'a-b', port: 8081, protocol: 'TCP' },
          { name: 'again', port: 8080, protocol: 'HTTP' },
        ],
      },
    },
  ];
}

function goRender(p: IstioPeer, v: Variant, cases: { template: string; gateway: JsonObject; derived: unknown }[]): { output?: string; error?: string }[] {
  const r = spawnSync(p.gatewayRender, ['-inject-config', v.configFile, '-values', v.valuesFile, '-mesh', p.mesh], {
    input: JSON.stringify(cases),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { output?: string; error?: string }[];
}

describe("Istio's gateway deployment templates: ours render what Istio's code renders", { skip }, () => {
  const variants = () => [
    variant(peer!, 'peer', () => {}),
    variant(peer!, 'steered', (values) => {
      const global = (values.global ?? {}) as JsonObject;
      values.global = { ...global, network: 'net1', variant: 'distroless', multiCluster: { clusterName: 'east' } };
      values.revision = 'canary';
    }),
  ];

  for (const make of [0, 1]) {
    it(`every class, every Gateway, values ${make === 0 ? 'as the peer has them' : 'steered (network, variant, revision, cluster)'}: byte for byte`, (t) => {
      const v = variants()[make];
      const mesh = meshSettings(v.ours);
      const cases: { template: string; gateway: JsonObject; derived: unknown; ours: string }[] = [];
      for (const cls of GATEWAY_CLASSES) {
        const compiled = v.ours.compiledTemplates.get(cls.template);
        assert.ok(compiled !== undefined, `the peer's config has no ${cls.template} template`);
        for (const gateway of [...representativeGateways(cls).map((g) => g.gateway), ...moreGateways(cls)]) {
          const input = { config: v.ours, mesh, gatewayClass: cls };
          cases.push({ template: cls.template, gateway, derived: gatewayDerived(gateway, input), ours: compiled.execute(gatewayTemplateData(gateway, input)) });
        }
      }
      const theirs = goRender(
        peer!,
        v,
        cases.map(({ ours: _, ...c }) => c),
      );
      let same = 0;
      cases.forEach((c, i) => {
        const name = `${c.template} for ${String((c.gateway.metadata as JsonObject).name)}`;
        assert.equal(theirs[i].error, undefined, `${name}: Istio's code failed: ${theirs[i].error}`);
        assert.equal(c.ours, theirs[i].output, `${name} renders differently`);
        // And it is something the API server takes: the check would report nothing.
        assert.deepEqual(renderedProblems(c.ours), [], name);
        same++;
      });
      t.diagnostic(`${same} renders identical`);
      assert.equal(same, GATEWAY_CLASSES.length * 3);
    });
  }

  it('the comparison sees the data: a different service account renders differently in both', () => {
    const v = variants()[0];
    const cls = GATEWAY_CLASSES[0];
    const gateway = representativeGateways(cls)[0].gateway;
    const derived = gatewayDerived(gateway, { config: v.ours, mesh: meshSettings(v.ours), gatewayClass: cls });
    const [a, b] = goRender(peer!, v, [
      { template: cls.template, gateway, derived },
      { template: cls.template, gateway, derived: { ...derived, ServiceAccount: 'other-sa' } },
    ]);
    assert.notEqual(a.output, b.output);
    assert.match(b.output ?? '', /name: "other-sa"/);
  });
});
