/**
 * The template data has every field Istio's has, in Istio's order, read from the pinned Istio
 * module's own source (the Go module cache e2e/build/istio.sh fills; skipped without it):
 * SidecarTemplateData for injection templates, and the gateway controller's TemplateInput and
 * derivedInput for its deployment templates. The Go reference renderer
 * (e2e/build/istio/gateway-render) declares the controller's two structs again, so it is held to
 * them too. A new field in a newer Istio fails here, by name, when the pin moves.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { representativeGateways } from '../check/gateways.js';
import { templateData } from '../inject/data.js';
import type { Pod } from '../inject/pod-types.js';
import { defaultConfig } from '../profiles/index.js';
import type { GoObject } from '../template/value.js';
import { ISTIO_MODULE_VERSION } from '../../test/support/istio-peer.js';
import { GATEWAY_CLASSES, gatewayTemplateData } from './gateway-data.js';
import { meshSettings } from './mesh-config.js';

function istioSource(): string | undefined {
  try {
    const cache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8', timeout: 30_000 }).trim();
    const dir = join(cache, `istio.io/istio@${ISTIO_MODULE_VERSION}`);
    return existsSync(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** The field names of Go struct `name` in `source`, in order; an embedded field by its type's name. */
function goFields(source: string, name: string): string[] {
  const body = new RegExp(`^type ${name} struct \\{\\n([\\s\\S]*?)\\n\\}`, 'm').exec(source)?.[1];
  assert.ok(body !== undefined, `struct ${name} not found`);
  return body
    .split('\n')
    .map((l) => l.replace(/\/\/.*$/, '').trim())
    .filter((l) => l !== '')
    .map((l) => {
      const words = l.split(/\s+/);
      return words.length === 1 ? (words[0].split('.').pop() ?? '').replace(/^\*/, '') : words[0];
    });
}

const dir = istioSource();
const skip = dir === undefined ? `the pinned Istio module (${ISTIO_MODULE_VERSION}) is not in the Go module cache; run e2e/build/istio.sh` : false;

describe("the template data has Istio's fields", { skip }, () => {
  it('SidecarTemplateData, field for field, in order', () => {
    const config = defaultConfig();
    const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'a' }] } } as unknown as Pod;
    const hooks = config.profiles.map((p) => p.forPod!({ pod, annotations: {}, namespace: 'ns', owner: undefined, pathParams: {} }));
    const istio = goFields(readFileSync(join(dir!, 'pkg/kube/inject/inject.go'), 'utf8'), 'SidecarTemplateData');
    assert.ok(istio.length >= 15, istio.join(' '));
    assert.deepEqual(templateData(config, hooks).fieldNames(), istio);
  });

  it("the gateway controller's derivedInput and TemplateInput, and the Go reference renderer's copies of them", () => {
    const controller = readFileSync(join(dir!, 'pilot/pkg/config/kube/gatewaycommon/deploymentcontroller.go'), 'utf8');
    const reference = readFileSync(new URL('../../e2e/build/istio/gateway-render/main.go', import.meta.url), 'utf8');
    const config = defaultConfig();
    const cls = GATEWAY_CLASSES[0];
    const data = gatewayTemplateData(representativeGateways(cls)[0].gateway, { config, mesh: meshSettings(config), gatewayClass: cls });
    const inner = data.getField('TemplateInput') as GoObject;
    assert.deepEqual(data.fieldNames(), goFields(controller, 'derivedInput'));
    assert.deepEqual(inner.fieldNames(), goFields(controller, 'TemplateInput'));
    // The reference names its embedded struct templateInput (unexported there); the fields are the controller's.
    assert.deepEqual(
      goFields(reference, 'derivedInput').map((f) => (f === 'templateInput' ? 'TemplateInput' : f)),
      goFields(controller, 'derivedInput'),
    );
    assert.deepEqual(goFields(reference, 'templateInput'), goFields(controller, 'TemplateInput'));
  });
});
