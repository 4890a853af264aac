import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budgetMs, parseGoDuration, parsePathParams, pathParamsFor, queryValue } from './request-params.js';

test('Go durations as the apiserver writes them', () => {
  assert.equal(parseGoDuration('10s'), 10_000);
  assert.equal(parseGoDuration('2.5s'), 2500);
  assert.equal(parseGoDuration('1m30s'), 90_000);
  assert.equal(parseGoDuration('500ms'), 500);
  assert.equal(parseGoDuration('0'), 0);
  for (const bad of ['', '10', 's', '-1s', '10x', '1e3s', 'x'.repeat(100)]) assert.equal(parseGoDuration(bad), undefined, bad);
});

test('the budget is min(cap, timeout - margin), with the cap when timeout is absent or bad', () => {
  const policy = { capMs: 2500, marginMs: 500 };
  assert.equal(budgetMs('timeout=10s', policy), 2500);
  assert.equal(budgetMs('timeout=2s', policy), 1500);
  assert.equal(budgetMs('timeout=600ms', policy), 300);
  assert.equal(budgetMs('', policy), 2500);
  assert.equal(budgetMs('timeout=banana', policy), 2500);
  assert.equal(budgetMs('a=1&timeout=3s&b', policy), 2500);
  assert.equal(queryValue('a=1&timeout=3s', 'timeout'), '3s');
  assert.equal(queryValue('timeout=%ZZ', 'timeout'), undefined);
});

test('Istio-style path parameters, --slash-- decoding, legacy :ENV: form', () => {
  assert.deepEqual({ ...parsePathParams('/inject/cluster/c1/net/n1') }, { cluster: 'c1', net: 'n1' });
  assert.deepEqual({ ...parsePathParams('/inject/cluster/a--slash--b/odd') }, { cluster: 'a/b' });
  assert.deepEqual({ ...parsePathParams('/inject/:ENV:cluster=c1:ENV:net=:ENV:=bad') }, { cluster: 'c1', net: '' });
  assert.equal(parsePathParams('/inject'), undefined);
  assert.equal(parsePathParams('/inject/'), undefined);
});

test('a __proto__ path key stays an entry and cached params are not shared between calls', () => {
  const a = pathParamsFor('/inject/__proto__/x');
  assert.equal(a?.['__proto__'], 'x');
  assert.equal(({} as Record<string, unknown>).x, undefined);
  const b = pathParamsFor('/inject/cluster/c1');
  (b as Record<string, string>).cluster = 'changed';
  assert.equal(pathParamsFor('/inject/cluster/c1')?.cluster, 'c1');
});
