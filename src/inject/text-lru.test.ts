import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TextLru } from './text-lru.js';

describe('TextLru', () => {
  it('answers only the same name and text, and drops the least recently used past its bound', () => {
    const lru = new TextLru<number>(3, 4);
    lru.add('t', 'aa', 1);
    lru.add('t', 'bb', 2);
    lru.add('u', 'aa', 3);
    assert.deepEqual([lru.get('t', 'aa'), lru.get('t', 'bb'), lru.get('u', 'aa'), lru.get('u', 'bb')], [1, 2, 3, undefined]);
    lru.get('t', 'aa'); // now the most recently used: 'bb' is the oldest
    lru.add('t', 'cccc', 4);
    assert.equal(lru.size, 3);
    assert.deepEqual([lru.get('t', 'bb'), lru.get('t', 'aa'), lru.get('t', 'cccc')], [undefined, 1, 4]);
  });

  it('holds at most perLength texts of one length (the earliest kept leaves), and delete drops one', () => {
    const lru = new TextLru<string>(100, 2);
    for (const t of ['a1', 'a2', 'a3']) lru.add('t', t, t);
    assert.deepEqual(
      ['a1', 'a2', 'a3'].map((t) => lru.get('t', t)),
      [undefined, 'a2', 'a3'],
    );
    lru.delete('t', 'a2');
    assert.deepEqual([lru.get('t', 'a2'), lru.get('t', 'a3'), lru.size], [undefined, 'a3', 1]);
    lru.delete('t', 'zz'); // not kept: nothing happens
    assert.equal(lru.size, 1);
  });
});
