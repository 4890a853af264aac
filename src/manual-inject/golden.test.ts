/**
 * Golden files of manual injection (testdata/inject, examples/): `inject -f` output and stderr
 * for every kind and every example, checked byte for byte; `UPDATE_GOLDEN=1` rewrites them.
 * Every case also goes through:
 * - the stale check: a file in testdata/inject that belongs to no input fails;
 * - idempotence: injecting the output again changes nothing;
 * - uninject: `uninject(inject(x))` equals `x` (parsed; untouched documents byte for byte);
 * - the webhook leg: each template becomes the Pod the apiserver would send, the core runs in
 *   webhook mode, its patch (applied with fast-json-patch) must give the core's pod, and that
 *   pod must equal the CLI's template. Only what the leg itself added (namespace, owner
 *   reference, the controller's labels, generateName) is ignored; a template whose webhook
 *   decision differs only because manual mode forces the policy is listed, not compared.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { defaultConfig, loadConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { errorInfo, InjectorError, type ErrorCode } from '../errors.js';
import { injectPod } from '../inject/index.js';
import { podTemplates, readManifest, type ManifestDocument } from '../manifest-io/index.js';
import { applyWithFastJsonPatch } from '../../test/support/patch/appliers.js';
import { runCli } from '../cli/command-tree.js';
import { goldenCases, REPO, staleGoldens, webhookPod, type GoldenCase } from '../../test/support/manual-goldens.js';
import { memoryIO } from '../../test/support/memory-io.js';
import { deepEqual, type JsonObject, type JsonValue } from '../util/json.js';
import { DEFAULT_NAMESPACE, podInput } from './pod-templates.js';

const UPDATE = process.env.UPDATE_GOLDEN === '1';
process.chdir(REPO); // goldens show repository-relative paths

const cases = goldenCases();
const configs = new Map<string, Promise<LoadedConfig>>();
const configFor = (c: GoldenCase): Promise<LoadedConfig> => {
  const key = c.config ?? '';
  if (!configs.has(key)) configs.set(key, c.config === undefined ? Promise.resolve(defaultConfig()) : loadConfig(c.config));
  return configs.get(key)!;
};
const configArgs = (c: GoldenCase): string[] => (c.config === undefined ? [] : ['--config', c.config]);

function read(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

/** Compare with the golden, or (UPDATE_GOLDEN=1) write it; an empty expectation means "no file". */
function checkGolden(path: string, actual: string): void {
  if (UPDATE) {
    if (actual === '') rmSync(path, { force: true });
    else writeFileSync(path, actual);
    return;
  }
  const expected = read(path);
  if (expected === undefined) {
    assert.equal(actual, '', `${path} does not exist but the output is not empty; run UPDATE_GOLDEN=1 npm test`);
    return;
  }
  assert.equal(actual, expected, `${path} differs (run UPDATE_GOLDEN=1 npm test if the change is intended)`);
}

async function inject(c: GoldenCase, extra: string[] = [], stdin?: string) {
  const io = memoryIO(stdin ?? '');
  const code = await runCli(['inject', '-f', stdin === undefined ? c.input : '-', ...configArgs(c), ...extra], io);
  return { code, out: io.out, err: io.err };
}

describe('manual injection goldens', () => {
  it('has a case for every kind and every example', () => {
    const names = new Set(cases.map((c) => c.name));
    for (const n of [
      'pod',
      'deployment',
      'statefulset',
      'daemonset',
      'replicaset',
      'replicationcontroller',
      'job',
      'cronjob',
      'deploymentconfig',
      'list',
      'multi-document',
      'host-network',
      'opt-out',
      'already-injected',
      'yaml11',
      'crlf',
      'error-malformed',
    ]) {
      assert.ok(names.has(n), `missing golden case ${n}`);
    }
    for (const e of ['istio-proxy', 'nginx-sidecar', 'log-shipper']) assert.ok(names.has(`example-${e}`), `missing example ${e}`);
  });

  it('has no stale golden files', { skip: UPDATE && 'updating' }, () => {
    assert.deepEqual(staleGoldens(cases), [], 'golden files without an input: delete them');
  });

  for (const c of cases) {
    describe(c.name, () => {
      it('inject -f matches the golden output and stderr', async () => {
        const r = await inject(c);
        if (r.code !== 0) {
          assert.equal(r.out, '', 'a failed run writes nothing');
          const code = /^Error \[(SI_[A-Z_]+)\]/m.exec(r.err)?.[1] as ErrorCode | undefined;
          assert.ok(code, `stderr names the error code: ${r.err}`);
          assert.equal(r.code, errorInfo(code).exitCode);
          assert.match(r.err, new RegExp(`${c.input.replaceAll('.', '\\.')}\\W+document \\d+, line \\d+`), 'the error names the document and line');
        }
        checkGolden(c.injected, r.out);
        checkGolden(c.stderr, r.err);
      });

      it('is idempotent: injecting the output again changes nothing', { skip: UPDATE && 'updating' }, async () => {
        const golden = read(c.injected);
        if (golden === undefined) {
          // An error case: the same input from stdin fails the same way, writing nothing.
          const code = goldenErrorCode(c);
          const again = await inject(c, [], readFileSync(c.input, 'utf8'));
          assert.deepEqual({ code: again.code, out: again.out }, { code: errorInfo(code).exitCode, out: '' });
          assert.match(again.err, new RegExp(`^Error \\[${code}\\]`), again.err);
          return;
        }
        const again = await inject(c, ['-q'], golden);
        assert.equal(again.code, 0, again.err);
        assert.equal(again.out, golden);
      });

      it('uninject gives the input back', { skip: UPDATE && 'updating' }, async () => {
        const golden = read(c.injected);
        if (golden === undefined) {
          // An error case: uninject reads the input as inject does. An input error is the same
          // error; an injection error (an unknown template) is none of uninject's business, and
          // the input comes back byte for byte.
          const code = goldenErrorCode(c);
          const io = memoryIO('');
          const exit = await runCli(['uninject', '-f', c.input, '-q', ...configArgs(c)], io);
          if (code.startsWith('SI_INPUT_')) {
            assert.deepEqual({ exit, out: io.out }, { exit: errorInfo(code).exitCode, out: '' });
            assert.match(io.err, new RegExp(`^Error \\[${code}\\]`), io.err);
          } else {
            assert.equal(exit, 0, io.err);
            assert.equal(io.out, readFileSync(c.input, 'utf8'));
          }
          return;
        }
        const uninject = async (text: string): Promise<string> => {
          const io = memoryIO(text);
          assert.equal(await runCli(['uninject', '-f', '-', '-q', ...configArgs(c)], io), 0, io.err);
          return io.out;
        };
        const inputText = readFileSync(c.input, 'utf8');
        // An input that was injected before (already-injected) comes back without any injection.
        const alreadyInjected = inputText.includes((await configFor(c)).injectionKeys.status);
        const original = readManifest(alreadyInjected ? await uninject(inputText) : inputText, c.input);
        const injected = readManifest(golden, 'injected');
        const back = readManifest(await uninject(golden), 'uninjected');
        assert.equal(back.length, original.length);
        for (let i = 0; i < original.length; i++) {
          if (injected[i].text === original[i].text) assert.equal(back[i].text, original[i].text, `document ${i + 1} was untouched: byte for byte`);
          else assert.deepEqual(back[i].value, original[i].value, `document ${i + 1}`);
        }
      });

      it('the webhook path gives the same pods', { skip: UPDATE && 'updating' }, async () => {
        const golden = read(c.injected);
        const config = await configFor(c);
        if (golden === undefined) {
          // An error case: the webhook leg (read, find the pod templates, inject in webhook
          // mode) meets the same error as inject -f.
          assert.equal(webhookLegError(c, config), goldenErrorCode(c));
          return;
        }
        const original = readManifest(readFileSync(c.input), c.input);
        const injected = readManifest(golden, 'injected');
        let compared = 0;
        for (let i = 0; i < original.length; i++) compared += compareWebhookLeg(original[i], injected[i], config);
        // Every case with an injected template compared at least one; skip-only cases compare none.
        if (golden !== read(c.input)) assert.ok(compared > 0, 'no template was compared');
      });
    });
  }
});

/** The code in an error case's stderr golden (`Error [SI_...]: ...`). */
function goldenErrorCode(c: GoldenCase): ErrorCode {
  const code = /^Error \[(SI_[A-Z_]+)\]/m.exec(read(c.stderr) ?? '')?.[1];
  assert.ok(code !== undefined, `${c.name}: no output golden, so ${c.stderr} must name the error`);
  return code as ErrorCode;
}

/** The code of the first error the webhook leg meets for this input; undefined when none. */
function webhookLegError(c: GoldenCase, config: LoadedConfig): string | undefined {
  try {
    for (const doc of readManifest(readFileSync(c.input), c.input)) {
      if (doc.value === null) continue;
      for (const ref of podTemplates(doc.value)) {
        const namespace = ref.owner.namespace ?? DEFAULT_NAMESPACE;
        injectPod(webhookPod(ref, podInput(doc.value, ref), namespace).pod, { namespace, mode: 'webhook' }, config);
      }
    }
  } catch (err) {
    assert.ok(err instanceof InjectorError, `an InjectorError, not ${String(err)}`);
    return err.code;
  }
  return undefined;
}

/** Returns how many templates were compared. */
function compareWebhookLeg(orig: ManifestDocument, out: ManifestDocument, config: LoadedConfig): number {
  if (orig.value === null) return 0;
  const before = podTemplates(orig.value);
  const after = podTemplates(out.value);
  assert.equal(after.length, before.length);
  let compared = 0;
  before.forEach((ref, k) => {
    const cli = after[k];
    const cliPod = podInput(out.value as JsonValue, cli);
    const manualInjected = !deepEqual(podInput(orig.value as JsonValue, ref), cliPod);
    const namespace = ref.owner.namespace ?? DEFAULT_NAMESPACE;
    const leg = webhookPod(ref, podInput(orig.value as JsonValue, ref), namespace);
    const result = injectPod(leg.pod, { namespace, mode: 'webhook' }, config);
    const what = `document ${orig.index + 1} ${ref.owner.kind} ${ref.owner.name}`;
    if (result.kind === 'skipped') {
      // Manual mode forces the policy to enabled and ignores the selectors; nothing else may differ.
      if (manualInjected)
        assert.ok(
          ['policy-disabled', 'never-inject-selector', 'policy-invalid'].includes(result.decision.reason),
          `${what}: webhook skipped (${result.decision.reason}) but inject -f injected`,
        );
      return;
    }
    assert.ok(manualInjected, `${what}: the webhook injects but inject -f did not`);
    const patched = applyWithFastJsonPatch(leg.pod, result.patch) as JsonObject;
    assert.deepEqual(patched, result.pod, `${what}: the patch applied to the original pod gives the core's pod`);
    const expected = { metadata: cliPod.metadata, spec: cliPod.spec };
    assert.deepEqual(leg.strip(patched), expected, `${what}: webhook result equals inject -f output`);
    compared++;
  });
  return compared;
}

describe('golden file name for documentation', () => {
  it('examples point at their goldens', () => {
    for (const c of cases.filter((x) => x.name.startsWith('example-'))) {
      const readme = readFileSync(join(c.input, '..', 'README.md'), 'utf8');
      assert.ok(readme.includes(c.injected), `${c.input}'s README names ${c.injected}`);
    }
  });
});
