import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { excerpt, freezeOverlay, parseOverlay } from './render-overlay.js';

describe('parseOverlay', () => {
  it('reads YAML 1.1 as Kubernetes does (yes/no are strings in pod fields only when quoted)', () => {
    assert.deepEqual(parseOverlay('t', 'metadata:\n  labels:\n    a: "on"\nspec:\n  containers:\n  - name: x\n    tty: yes\n'), {
      metadata: { labels: { a: 'on' } },
      spec: { containers: [{ name: 'x', tty: true }] },
    });
  });

  it('empty output is an empty overlay', () => {
    assert.deepEqual(parseOverlay('t', '\n# nothing\n'), {});
  });

  it('spec: or metadata: with nothing under it merges nothing (null would delete the pod spec in a strategic merge)', () => {
    assert.deepEqual(parseOverlay('t', 'metadata:\nspec:\n'), {});
    assert.deepEqual(parseOverlay('t', 'metadata:\n  labels: {a: b}\nspec:\n'), { metadata: { labels: { a: 'b' } } });
  });

  it('rejects other top-level keys, non-map output and non-map metadata/spec, showing the line', () => {
    assert.throws(() => parseOverlay('t', 'spec: {}\nstatus: {}\n'), /rendered a top-level "status"(.|\n)*> 2 \| status: \{\}/);
    assert.throws(() => parseOverlay('t', '- a\n'), /rendered a list, not a pod overlay/);
    assert.throws(() => parseOverlay('t', 'spec: [1]\n'), /rendered spec as a list; it must be a map/);
  });

  it('a YAML error names the template and shows the rendered lines around it', () => {
    assert.throws(
      () => parseOverlay('sidecar', 'spec:\n  containers:\n  - name: a\n     image: b\n'),
      (err: Error & { code?: string }) =>
        err.code === 'SI_INJECT_RENDER_OUTPUT' &&
        /template "sidecar" rendered text that is not valid YAML \(line \d\)/.test(err.message) &&
        /\|   - name: a/.test(err.message),
    );
  });

  it("a text seen before is kept after its second read: the same frozen overlay again, never another text's or another name's", () => {
    const first = parseOverlay('cache-a', 'spec:\n  hostname: aaaa\n');
    assert.ok(!Object.isFrozen(first), 'a text seen once is not kept, so its overlay is not frozen for sharing');
    const a = parseOverlay('cache-a', 'spec:\n  hostname: aaaa\n');
    assert.deepEqual(a, first);
    assert.notEqual(a, first);
    assert.equal(parseOverlay('cache-a', 'spec:\n  hostname: aaaa\n'), a);
    assert.ok(Object.isFrozen(a) && Object.isFrozen(a.spec));
    assert.equal(freezeOverlay(first), first);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.spec), 'freezeOverlay freezes it whole');
    // Same length, other text; same text, other name.
    assert.deepEqual(parseOverlay('cache-a', 'spec:\n  hostname: bbbb\n'), { spec: { hostname: 'bbbb' } });
    assert.notEqual(parseOverlay('cache-b', 'spec:\n  hostname: aaaa\n'), a);
  });

  it('many texts of one length, past every cache bound: each lookup answers its own text', () => {
    const text = (i: number) => `spec:\n  hostname: h${String(i).padStart(4, '0')}\n`;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 300; i += round + 1) {
        assert.deepEqual(parseOverlay('many', text(i)), { spec: { hostname: `h${String(i).padStart(4, '0')}` } });
        assert.deepEqual(parseOverlay('many', text(i % 7)), { spec: { hostname: `h${String(i % 7).padStart(4, '0')}` } });
      }
    }
  });

  it('excerpt marks the line and clips long ones', () => {
    const text = ['a', 'b', 'c', 'x'.repeat(300), 'e', 'f'].join('\n');
    const out = excerpt(text, 4);
    assert.match(out, /> 4 \| x{160}\.\.\./);
    assert.match(out, /  2 \| b/);
    assert.doesNotMatch(out, /1 \| a/);
  });
});
