/**
 * Revisions and tags (issue 32): `manifests --revision/--tag` install a second injector and tag
 * webhooks beside the default one, with Istio's selectors (checked against the live istioctl
 * when e2e/build/istio.sh has built it), so that every pod reaches at most one injector; and
 * the revision reaches the status annotation and `.Revision`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { ISTIO_INJECTION_KEYS } from '../config/istio-names.js';
import { defaultConfig, parseConfig } from '../profiles/index.js';
import { injectPod } from '../inject/pipeline.js';
import { parseStatus } from '../inject/status-annotation.js';
import { findIstioPeer, istioPeerDir } from '../../test/support/istio-peer.js';
import { scopesFromWebhooks } from '../heal/scan.js';
import { generateInstall, type InstallRequest } from './build-manifests.js';
import { evaluateScopes, NAMESPACE_NAME_LABEL, tagScopes, webhookScopes, type WebhookScope } from './webhook-rules.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- generated objects are walked as loose JSON */
type Obj = Record<string, any>;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'si-revisions-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function docsOf(request: InstallRequest): Promise<{ docs: Obj[]; notes: string[] }> {
  const r = await generateInstall(request);
  return { docs: parseAllDocuments(r.yaml).map((d) => d.toJS() as Obj), notes: r.notes };
}

const keys = ISTIO_INJECTION_KEYS;
const NS = 'sidecar-injector';

describe('manifests --revision', () => {
  it('names every object <name>-<revision>, runs serve --revision, shares the namespace, and issues the certificate for its own Service', async () => {
    const { docs, notes } = await docsOf({ revision: 'canary', certsDir: join(dir, 'canary') });
    assert.deepEqual(
      docs.map((d) => d.kind),
      [
        'ServiceAccount',
        'ClusterRole',
        'ClusterRoleBinding',
        'ConfigMap',
        'Secret',
        'Service',
        'Deployment',
        'PodDisruptionBudget',
        'MutatingWebhookConfiguration',
      ],
    );
    for (const d of docs) {
      assert.ok(d.metadata.name.startsWith('sidecar-injector-canary'), `${d.kind} ${d.metadata.name}`);
      assert.equal(d.metadata.labels['sidecar-injector.io/revision'], 'canary', d.kind);
    }
    const deployment = docs.find((d) => d.kind === 'Deployment')!;
    const args: string[] = deployment.spec.template.spec.containers[0].args;
    assert.deepEqual(args.slice(args.indexOf('--revision'), args.indexOf('--revision') + 2), ['--revision', 'canary']);
    assert.deepEqual(args.slice(args.indexOf('--webhook-config'), args.indexOf('--webhook-config') + 2), ['--webhook-config', 'sidecar-injector-canary']);
    assert.equal(deployment.spec.selector.matchLabels['app.kubernetes.io/instance'], 'sidecar-injector-canary', "never selects the default revision's pods");
    const mwc = docs.find((d) => d.kind === 'MutatingWebhookConfiguration')!;
    assert.deepEqual(
      mwc.webhooks.map((w: Obj) => w.name),
      ['rev.namespace.sidecar-injector.io', 'rev.object.sidecar-injector.io'],
    );
    assert.ok(mwc.webhooks.every((w: Obj) => w.clientConfig.service.name === 'sidecar-injector-canary'));
    assert.match(notes.join('\n'), /Revision canary: no Namespace object \(the revisions share sidecar-injector/);
    const cert = new X509Certificate(await readFile(join(dir, 'canary', 'tls.crt')));
    assert.match(cert.subjectAltName ?? '', /DNS:sidecar-injector-canary\.sidecar-injector\.svc\b/);
  });

  it('self-provisioned side by side with the default install: its own certificate Secret, Role and ClusterRole, no name shared', async () => {
    const key = (d: Obj) => `${d.kind}/${d.metadata.namespace ?? ''}/${d.metadata.name}`;
    const base = (await docsOf({})).docs.filter((d) => d.kind !== 'Namespace');
    const canary = (await docsOf({ revision: 'canary' })).docs;
    assert.deepEqual(
      canary.map(key).filter((k) => base.map(key).includes(k)),
      [],
    );
    const secret = canary.find((d) => d.kind === 'Secret')!;
    assert.deepEqual([secret.metadata.name, secret.type], ['sidecar-injector-canary-certs', 'Opaque']);
    const role = canary.find((d) => d.kind === 'Role')!;
    assert.deepEqual(role.rules[0].resourceNames, ['sidecar-injector-canary-certs']);
    const binding = canary.find((d) => d.kind === 'RoleBinding')!;
    assert.deepEqual([binding.roleRef.name, binding.subjects[0].name], [role.metadata.name, 'sidecar-injector-canary']);
    const args: string[] = canary.find((d) => d.kind === 'Deployment')!.spec.template.spec.containers[0].args;
    assert.ok(args.join(' ').includes('--tls-secret sidecar-injector-canary-certs --tls-provision sidecar-injector-canary'), args.join(' '));
  });

  it('writes the Namespace when asked, and tags as extra webhook configurations named from the base name', async () => {
    const { docs } = await docsOf({ revision: 'canary', tags: ['prod', 'default', 'prod'], includeNamespace: true, certsDir: join(dir, 'canary') });
    assert.equal(docs[0]!.kind, 'Namespace');
    const mwcs = docs.filter((d) => d.kind === 'MutatingWebhookConfiguration');
    assert.deepEqual(
      mwcs.map((m) => m.metadata.name),
      ['sidecar-injector-canary', 'sidecar-injector-revision-tag-prod', 'sidecar-injector-revision-tag-default'],
    );
    const prod = mwcs[1]!;
    assert.deepEqual([prod.metadata.labels['sidecar-injector.io/revision'], prod.metadata.labels['sidecar-injector.io/tag']], ['canary', 'prod']);
    assert.deepEqual(
      prod.webhooks.map((w: Obj) => w.name),
      ['rev.namespace.sidecar-injector.io', 'rev.object.sidecar-injector.io'],
    );
    assert.equal(prod.webhooks[0].namespaceSelector.matchExpressions[0].values[0], 'prod');
    assert.ok(prod.webhooks.every((w: Obj) => w.clientConfig.service.name === 'sidecar-injector-canary' && typeof w.clientConfig.caBundle === 'string'));
    assert.deepEqual(
      mwcs[2]!.webhooks.map((w: Obj) => w.name.split('.sidecar')[0]),
      ['rev.namespace', 'rev.object', 'namespace', 'object'],
    );
  });

  it('a tag on the default install points at the default Service and says so', async () => {
    const { docs } = await docsOf({ tags: ['stable'], certsDir: join(dir, 'default') });
    const tag = docs.find((d) => d.metadata.name === 'sidecar-injector-revision-tag-stable')!;
    assert.equal(tag.metadata.labels['sidecar-injector.io/revision'], 'default');
    assert.equal(tag.webhooks[0].clientConfig.service.name, 'sidecar-injector');
    assert.equal(docs.find((d) => d.kind === 'Deployment')!.spec.template.spec.containers[0].args.includes('--revision'), false);
  });

  it("installs Istio's revisioned ConfigMap as its revision (values.revision), and refuses a --revision that contradicts it", async () => {
    const cfg = join(dir, 'istio-rev');
    await mkdir(cfg, { recursive: true });
    await writeFile(
      join(cfg, 'config'),
      'policy: enabled\ntemplates:\n  sidecar: |\n    spec:\n      containers:\n      - name: helper\n        image: busybox\n',
    );
    await writeFile(join(cfg, 'values'), '{"revision": "1-25"}\n');
    const { docs } = await docsOf({ config: cfg, certsDir: join(dir, '1-25') });
    assert.equal(docs.find((d) => d.kind === 'Deployment')!.metadata.name, 'sidecar-injector-1-25');
    assert.equal(docs.find((d) => d.kind === 'MutatingWebhookConfiguration')!.webhooks[0].namespaceSelector.matchExpressions[0].values[0], '1-25');
    await assert.rejects(
      generateInstall({ config: cfg, revision: 'canary', certsDir: join(dir, 'x') }),
      /--revision canary, but the config's values.revision is "1-25"/,
    );
  });

  it('refuses what would break: bad names, "default", a tag named like its revision, auto-injection, a tag without a caBundle', async () => {
    const bad: [InstallRequest, RegExp][] = [
      [{ revision: 'Canary' }, /--revision: revision "Canary" must be a lowercase DNS label/],
      [{ revision: 'default' }, /revision "default" is the install without --revision/],
      [{ revision: 'canary', tags: ['canary'] }, /--tag canary is the revision's own name/],
      [{ tags: ['Prod'] }, /--tag: tag "Prod" must be a lowercase DNS label/],
      [{ revision: 'canary', enableNamespacesByDefault: true }, /--enable-namespaces-by-default belongs to the default revision/],
      [{ name: 'a'.repeat(45), revision: 'canary-1234' }, /longer than 52 characters/],
      [{ tags: ['prod'], certMode: 'none', certsDir: undefined }, /--tag needs a caBundle .* --existing-secret with --ca-file/],
      // Self-provisioned (the default): the server's CA reaches only its own configuration.
      [{ tags: ['prod'], certsDir: undefined }, /--tag needs a caBundle .* use --certs-dir DIR/],
    ];
    for (const [request, message] of bad) await assert.rejects(generateInstall({ certsDir: join(dir, 'bad'), ...request }), message, JSON.stringify(request));
  });
});

/** Which injectors reach a pod: every configuration whose entries match. */
function reaching(configs: Record<string, WebhookScope[]>, nsLabels: Record<string, string>, podLabels: Record<string, string>): string[] {
  return Object.entries(configs)
    .filter(([, scopes]) => evaluateScopes(scopes, { name: 'shop', labels: nsLabels }, podLabels).reached)
    .map(([name]) => name);
}

describe("revision selectors: Istio's precedence, and never two injectors for one pod", () => {
  const opts = { injectorNamespace: NS };
  const side = {
    default: webhookScopes(keys, opts),
    canary: webhookScopes(keys, { ...opts, revision: 'canary' }),
    'tag prod -> canary': tagScopes(keys, 'prod', opts),
  };
  const NSL = keys.namespaceLabel;
  const REV = keys.revisionLabel;
  const INJ = keys.inject;

  it('routes as Istio does', () => {
    const table: [Record<string, string>, Record<string, string>, string[]][] = [
      [{ [NSL]: 'enabled' }, {}, ['default']],
      [{ [REV]: 'canary' }, {}, ['canary']],
      [{ [REV]: 'prod' }, {}, ['tag prod -> canary']],
      // istio-injection=enabled wins over istio.io/rev on a namespace.
      [{ [NSL]: 'enabled', [REV]: 'canary' }, {}, ['default']],
      // The namespace's revision wins over the pod's.
      [{ [REV]: 'canary' }, { [REV]: 'prod' }, ['canary']],
      [{}, { [REV]: 'canary' }, ['canary']],
      [{}, { [REV]: 'canary', [INJ]: 'false' }, []],
      [{}, { [INJ]: 'true' }, ['default']],
      [{}, { [INJ]: 'true', [REV]: 'prod' }, ['tag prod -> canary']],
      [{ [REV]: 'canary' }, { [INJ]: 'false' }, []],
      [{ [REV]: 'unknown' }, {}, []],
      [{ [NSL]: 'disabled', [REV]: 'canary' }, {}, []],
    ];
    for (const [ns, pod, expected] of table) assert.deepEqual(reaching(side, ns, pod), expected, `namespace ${JSON.stringify(ns)}, pod ${JSON.stringify(pod)}`);
  });

  it('every combination of labels reaches at most one injector, with or without the default tag', () => {
    const withDefaultTag = { canary: side.canary, 'tag prod': side['tag prod -> canary'], 'tag default -> canary': tagScopes(keys, 'default', opts) };
    const nsValues = [undefined, 'enabled', 'disabled'];
    const revValues = [undefined, 'canary', 'prod', 'default', 'other'];
    const injValues = [undefined, 'true', 'false'];
    let combinations = 0;
    for (const nsl of nsValues)
      for (const nsRev of revValues)
        for (const inj of injValues)
          for (const podRev of revValues) {
            const ns = Object.fromEntries(Object.entries({ [NSL]: nsl, [REV]: nsRev }).filter(([, v]) => v !== undefined)) as Record<string, string>;
            const pod = Object.fromEntries(Object.entries({ [INJ]: inj, [REV]: podRev }).filter(([, v]) => v !== undefined)) as Record<string, string>;
            for (const configs of [side, withDefaultTag])
              assert.ok(reaching(configs, ns, pod).length <= 1, `${JSON.stringify(ns)} ${JSON.stringify(pod)}: ${reaching(configs, ns, pod).join(', ')}`);
            combinations++;
          }
    assert.equal(combinations, 225);
  });
});

describe('revision selectors against the live istioctl', () => {
  const peer = findIstioPeer();
  it("are Istio's, entry for entry (ours add only the namespace exclusion and the match conditions)", {
    skip: peer === undefined ? `Istio peer not built (${istioPeerDir()}); run e2e/build/istio.sh` : false,
  }, async () => {
    const r = spawnSync(
      peer!.istioctl,
      ['manifest', 'generate', '--set', 'revision=canary', '--set', 'values.revisionTags[0]=prod', '--set', 'values.revisionTags[1]=default'],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        timeout: 120_000,
        env: { ...process.env, KUBECONFIG: '/dev/null' },
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const istio = parseAllDocuments(r.stdout)
      .map((d) => d.toJS() as Obj)
      .filter((d) => d?.kind === 'MutatingWebhookConfiguration');
    const { docs } = await docsOf({ revision: 'canary', tags: ['prod', 'default'], certsDir: join(dir, 'canary') });
    const ours = docs.filter((d) => d.kind === 'MutatingWebhookConfiguration');
    const istioName: Record<string, string> = {
      'sidecar-injector-canary': 'istio-sidecar-injector-canary',
      'sidecar-injector-revision-tag-prod': 'istio-revision-tag-prod',
      'sidecar-injector-revision-tag-default': 'istio-revision-tag-default',
    };
    const comparable = (webhooks: unknown[]) =>
      scopesFromWebhooks(webhooks).map((s) => ({
        entry: s.name.replace(/sidecar-injector\.(istio\.)?io$/, ''),
        namespaceSelector: (s.namespaceSelector.matchExpressions ?? []).filter((e) => e.key !== NAMESPACE_NAME_LABEL),
        objectSelector: s.objectSelector.matchExpressions ?? [],
      }));
    for (const mwc of ours) {
      const theirs = istio.find((m) => m.metadata.name === istioName[mwc.metadata.name]);
      assert.ok(theirs, `istioctl renders ${istioName[mwc.metadata.name]}`);
      assert.deepEqual(comparable(mwc.webhooks), comparable(theirs.webhooks), mwc.metadata.name);
      assert.equal(theirs.webhooks[0].clientConfig.service.name, 'istiod-canary', "Istio's tags point at the revision too");
    }
  });
});

describe('the revision in the status annotation and .Revision', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };

  it('serve --revision makes the built-in config inject revision canary (status, ISTIO_META_REVISION)', () => {
    const r = injectPod(pod, { namespace: 'shop', mode: 'webhook' }, defaultConfig({ revision: 'canary' }));
    assert.equal(r.kind, 'injected');
    if (r.kind !== 'injected') return;
    const annotations = (r.pod.metadata as Obj).annotations as Record<string, string>;
    assert.equal(parseStatus(annotations['sidecar.istio.io/status']!, 'sidecar.istio.io/status').status.revision, 'canary');
    const sidecar = ((r.pod.spec as Obj).containers as Obj[]).find((c) => c.name === 'sidecar-proxy')!;
    assert.deepEqual(
      sidecar.env.find((e: Obj) => e.name === 'ISTIO_META_REVISION'),
      { name: 'ISTIO_META_REVISION', value: 'canary' },
    );
    const plain = injectPod(pod, { namespace: 'shop', mode: 'webhook' }, defaultConfig());
    assert.equal(
      plain.kind === 'injected' &&
        parseStatus(((plain.pod.metadata as Obj).annotations as Record<string, string>)['sidecar.istio.io/status']!, 'x').status.revision,
      'default',
    );
    assert.notEqual(defaultConfig({ revision: 'canary' }).hash, defaultConfig().hash, 'a revision is part of the config (its hash)');
  });

  it('a config that names another revision is refused, naming both', () => {
    assert.throws(
      () => parseConfig('policy: enabled\n', '{"revision": "1-24"}', 'cfg', { revision: '1-25' }),
      /values.revision is "1-24" but this injector serves revision "1-25"/,
    );
    assert.equal(parseConfig('policy: enabled\n', '{"revision": "1-25"}', 'cfg', { revision: '1-25' }).values.revision, '1-25');
  });
});
