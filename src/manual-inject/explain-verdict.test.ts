/**
 * `explain` never contradicts itself (issue 12): when the rules say inject but the injection
 * fails, the headline is REJECTED with the error, not INJECTED with a warning at the bottom;
 * and it says which compatibility mode the config is in, and why.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig, parseConfig } from '../profiles/index.js';
import { explainManifest } from './explain-manifest.js';
import { formatExplainText } from './explain-format.js';

const pod = (annotations: Record<string, string>) => `apiVersion: v1
kind: Pod
metadata:
  name: web
  namespace: shop
  annotations: ${JSON.stringify(annotations)}
spec:
  containers:
  - name: web
    image: nginx
`;

describe('explain: verdict', () => {
  it('an unknown template in the annotation: REJECTED with the reason in the headline', () => {
    const [e] = explainManifest(pod({ 'inject.istio.io/templates': 'nope' }), 'app.yaml', defaultConfig());
    assert.equal(e.outcome, 'rejected');
    assert.equal(e.injected, false);
    assert.equal(e.error?.code, 'SI_INJECT_TEMPLATE_MISSING');
    const text = formatExplainText([e]);
    const [headline, message] = text.split('\n');
    assert.match(headline, /^Pod "shop\/web" \(document 1\): REJECTED \(SI_INJECT_TEMPLATE_MISSING\)$/);
    assert.match(message, /the injection fails, so the webhook rejects the pod: .*nope/);
    assert.doesNotMatch(text, /INJECTED/);
  });

  it('a template that fails to render: REJECTED', () => {
    const config = parseConfig('templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: s\n        image: {{ fail "no image configured" }}\n');
    const [e] = explainManifest(pod({}), 'app.yaml', config);
    assert.equal(e.outcome, 'rejected');
    assert.match(formatExplainText([e]), /REJECTED \(SI_TEMPLATE_EXEC\)[\s\S]*no image configured/);
  });

  it('a bad Istio annotation: REJECTED naming it', () => {
    const [e] = explainManifest(pod({ 'traffic.sidecar.istio.io/includeInboundPorts': 'x' }), 'app.yaml', defaultConfig());
    assert.equal(e.outcome, 'rejected');
    assert.match(e.message, /includeInboundPorts/);
  });

  it('a pod that injects fine is INJECTED, one that opts out NOT INJECTED', () => {
    assert.equal(explainManifest(pod({}), 'app.yaml', defaultConfig())[0].outcome, 'injected');
    const out = explainManifest(pod({ 'sidecar.istio.io/inject': 'false' }), 'app.yaml', defaultConfig())[0];
    assert.equal(out.outcome, 'not-injected');
  });

  it('says which compatibility mode and why', () => {
    const text = formatExplainText(explainManifest(pod({}), 'app.yaml', defaultConfig()));
    assert.match(text, /- compatibility: none \(explicit: the config says compatibility: none\)/);
    const istio = parseConfig('policy: enabled', JSON.stringify({ global: { proxy: {} } }));
    const [e] = explainManifest(pod({}), 'app.yaml', istio);
    const step = e.steps.find((s) => s.check === 'compatibility');
    assert.match(step?.found ?? '', /^istio \(detected: the values are shaped like Istio's/);
    assert.match(step?.effect ?? '', /probe rewriting and Prometheus merge on, native sidecars on/);
  });
});
