/**
 * The render memo (render-memo.ts) must never change an injection: pods that agree on what a
 * template reads share one render, everything else renders anew. Held to the same config with
 * the memo switched off (templates that report no read chains), on generated pods and on the
 * variants a DaemonSet makes (the same pod, another node).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { LoadedConfig } from '../config/types.js';
import type { Template } from '../template/index.js';
import { podArb } from '../../test/support/inject-arbitraries.js';
import { DelegatingTemplate } from '../../test/support/template-engines.js';
import { defaultConfigWith, templatesConfig, WEBHOOK } from '../../test/support/inject-fixtures.js';
import { istioChartConfig, istioChartPresent } from '../../test/support/istio-chart.js';
import type { JsonObject } from '../util/json.js';
import { injectPod } from './index.js';
import { memoCounts, memoFootprint } from './render-memo.js';

/** `memo: false` reports no read chains: never memoised. */
class Memoised extends DelegatingTemplate {
  constructor(
    inner: Template,
    private readonly memo: boolean,
  ) {
    super(inner);
  }
  override rootReads(): readonly (readonly string[])[] | null {
    return this.memo ? this.inner.rootReads() : null;
  }
}

/** The same config twice: with the memo and without it. */
function pair(config: LoadedConfig): { memo: LoadedConfig; plain: LoadedConfig } {
  const wrap = (memo: boolean) => new Map([...config.compiledTemplates].map(([n, t]) => [n, new Memoised(t, memo)]));
  return { memo: { ...config, compiledTemplates: wrap(true) }, plain: { ...config, compiledTemplates: wrap(false) } };
}

function outcome(pod: unknown, config: LoadedConfig): unknown {
  try {
    return injectPod(structuredClone(pod), WEBHOOK, config);
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** A DaemonSet's pods: one pod, pinned to different nodes. */
function onNodes(pod: JsonObject, nodes: readonly string[]): JsonObject[] {
  return nodes.map((node) => {
    const p = structuredClone(pod);
    const spec = p.spec as JsonObject;
    spec.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [node] }] }] },
      },
    };
    return p;
  });
}

const configs: [string, () => LoadedConfig][] = [
  ['the built-in config', () => defaultConfigWith()],
  [
    'templates reading volumes, labels and a container field',
    () =>
      templatesConfig({
        s: [
          'spec:',
          '  containers:',
          '  - name: side',
          '    image: {{ printf "img:%v" (len .Spec.Volumes) | quote }}',
          '    args: [{{ range $i, $c := .Spec.Containers }}{{ if $i }}, {{ end }}{{ $c.Image | quote }}{{ end }}]',
          '    env:',
          '    - name: APP',
          '      value: {{ index .ObjectMeta.Labels "app" | default "none" | quote }}',
        ].join('\n'),
      }),
  ],
];
if (istioChartPresent()) configs.push(["Istio's chart", () => istioChartConfig()]);

describe('render memo', () => {
  for (const [label, make] of configs) {
    it(`gives the injection the memo-less render gives, on generated pods and DaemonSet variants (${label})`, () => {
      const { memo, plain } = pair(make());
      const hitsBefore = memoCounts.hits;
      fc.assert(
        fc.property(podArb(), fc.array(fc.constantFrom('node-a', 'node-b', 'node-c'), { minLength: 1, maxLength: 3 }), (pod, nodes) => {
          for (const p of [pod, ...onNodes(pod, nodes), pod]) {
            assert.deepStrictEqual(outcome(p, memo), outcome(p, plain));
          }
        }),
        { numRuns: 60 },
      );
      // Not vacuous: the DaemonSet variants were served from the memo (with the debug checks on,
      // npm test's setting, each of those hits was also rendered again and compared).
      assert.ok(memoCounts.hits - hitsBefore > 60, `${memoCounts.hits - hitsBefore} memo hits`);
    });
  }

  it('renders again when a field the template reads changes', () => {
    const { memo } = pair(defaultConfigWith());
    const pod: JsonObject = { metadata: { name: 'p' }, spec: { containers: [{ name: 'app', image: 'app:1' }] } };
    const { hits, stored } = memoCounts;
    const a = injectPod(structuredClone(pod), WEBHOOK, memo);
    const renamed = structuredClone(pod);
    ((renamed.spec as JsonObject).containers as JsonObject[])[0].name = 'web';
    const b = injectPod(renamed, WEBHOOK, memo);
    assert.deepEqual([memoCounts.hits - hits, memoCounts.stored - stored], [0, 2]);
    assert.notDeepEqual(a, b);
    for (const p of onNodes(pod, ['n1', 'n2'])) injectPod(p, WEBHOOK, memo);
    assert.deepEqual([memoCounts.hits - hits, memoCounts.stored - stored], [2, 2], 'pods that differ only in node affinity share the first render');
  });

  it('stands aside when keys never repeat, and the injections stay the same', () => {
    const { memo, plain } = pair(defaultConfigWith());
    const pod = (i: number): JsonObject => ({ metadata: { name: `p${i}` }, spec: { containers: [{ name: `app-${i}`, image: 'app:1' }] } });
    const { skipped } = memoCounts;
    for (let i = 0; i < 600; i++) assert.deepStrictEqual(outcome(pod(i), memo), outcome(pod(i), plain));
    // 512 lookups without a hit closed a window: the later renders went past the memo.
    assert.equal(memoCounts.skipped - skipped, 600 - 512);
  });

  it('renders a pod too large for its key to pay without one, and the injection stays the same', () => {
    const { memo, plain } = pair(defaultConfigWith());
    const env = Array.from({ length: 2000 }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}` }));
    const pod = (node: string): JsonObject => onNodes({ metadata: { name: 'big' }, spec: { containers: [{ name: 'app', image: 'app:1', env }] } }, [node])[0];
    const { hits, stored, large } = memoCounts;
    for (const node of ['n1', 'n2', 'n3']) assert.deepStrictEqual(outcome(pod(node), memo), outcome(pod(node), plain));
    // The built-in template's text is a few KB; this pod's JSON is about 80 KB.
    assert.deepEqual([memoCounts.hits - hits, memoCounts.stored - stored, memoCounts.large - large], [0, 0, 3]);
    // A small pod still gets its key (and its DaemonSet siblings their hit).
    const small = (node: string): JsonObject => onNodes({ metadata: { name: 'small' }, spec: { containers: [{ name: 'app', image: 'app:1' }] } }, [node])[0];
    for (const node of ['n1', 'n2']) injectPod(small(node), WEBHOOK, memo);
    assert.deepEqual([memoCounts.hits - hits, memoCounts.stored - stored, memoCounts.large - large], [1, 1, 3]);
  });

  it('keeps its memory bounded: pods with large annotations evict sooner', () => {
    // A template that renders the large annotation, so its pods are not too large for a key.
    const { memo } = pair(templatesConfig({ s: 'metadata:\n  annotations:\n    copy: {{ index .ObjectMeta.Annotations "note" | quote }}' }));
    const big = 'x'.repeat(30_000);
    for (let i = 0; i < 200; i++) {
      injectPod({ metadata: { name: 'p', annotations: { note: `${i}${big}` } }, spec: { containers: [{ name: 'app', image: 'app:1' }] } }, WEBHOOK, memo);
    }
    const { entries, chars } = memoFootprint(memo);
    assert.ok(chars <= 1024 * 1024, `${chars} characters kept`);
    assert.ok(entries > 10 && entries < 64, `${entries} entries kept`);
  });

  it('stands aside twice as long after a second window without hits', () => {
    const { memo } = pair(templatesConfig({ s: 'metadata:\n  annotations:\n    name: {{ .ObjectMeta.Name | quote }}' }));
    const pod = (i: number): JsonObject => ({ metadata: { name: `p${i}` }, spec: { containers: [{ name: 'app', image: 'app:1' }] } });
    const { skipped, stored } = memoCounts;
    // A window (512 keyed), the first stand-aside (4,096), a second failed window (512), then 10 of the doubled one.
    for (let i = 0; i < 512 + 4096 + 512 + 10; i++) injectPod(pod(i), WEBHOOK, memo);
    assert.deepEqual([memoCounts.skipped - skipped, memoCounts.stored - stored], [4096 + 10, 1024]);
    for (let i = 0; i < 8192 - 10; i++) injectPod(pod(i), WEBHOOK, memo);
    assert.equal(memoCounts.stored - stored, 1024, 'still standing aside: the second stand-aside is 8,192 renders');
  });
});
