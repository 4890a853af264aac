/**
 * `config check` (issue 12): every template against representative pods, validated as the API
 * server would; failures name file, template, line and field; missing keys warn; the
 * "restricted" profile is reported; serve refuses a config invalid for every pod.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig, parseConfig } from '../profiles/index.js';
import { injectPod } from '../inject/index.js';
import { checkConfig, formatReport } from './check.js';
import { basePods, representativePods } from './pods.js';
import { restrictedFailures } from './restricted.js';
import { assertServable } from './serve-gate.js';
import { podProblems } from './validate-pod.js';

const BAD = `policy: enabled
templates:
  sidecar: |
    spec:
      containers:
      - name: logger
        image: {{ .Values.imag }}
        resources:
          requests:
            cpu: lots
        volumeMounts:
        - name: logs
          mountPath: /var/log
values:
  image: fluent-bit:3.0
`;

describe('config check', () => {
  it('the built-in config passes, and its init container is reported as not "restricted"', () => {
    const config = defaultConfig();
    const r = checkConfig(config, representativePods(config));
    assert.deepEqual(r.failures, []);
    assert.ok(r.renders >= 4);
    assert.ok(r.restricted.some((x) => x.container === 'proxy-init' && x.reasons.some((m) => m.includes('NET_ADMIN'))));
    assert.match(formatReport(r), /^ok: 1 template\(s\) x \d+ pod\(s\)/m);
  });

  it('a broken sidecar: every failure with file, template, line and field; the missing key warns', () => {
    const config = parseConfig(BAD, undefined, 'bad.yaml');
    const r = checkConfig(config, basePods(config), { source: { file: 'bad.yaml', text: BAD } });
    const fields = new Set(r.failures.map((f) => f.field));
    assert.ok(fields.has('spec.containers[name=logger].resources.requests.cpu'));
    assert.ok(fields.has('spec.containers[name=logger].volumeMounts[0].name'));
    assert.ok(fields.has('spec.containers[name=logger].image'), 'the <no value> image');
    for (const f of r.failures) assert.deepEqual([f.file, f.line, f.template], ['bad.yaml', 6, 'sidecar']);
    assert.equal(r.warnings.length, 1);
    assert.match(r.warnings[0].message, /map has no entry for key "imag"/);
    assert.equal(r.warnings[0].line, 7, 'the template line of .Values.imag');
  });

  it('templateOptions.missingKey: error makes the typo an injection error', () => {
    const config = parseConfig(BAD.replace('policy: enabled', 'policy: enabled\ntemplateOptions:\n  missingKey: error'));
    assert.throws(
      () => injectPod({ metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'a' }] } }, { namespace: 'x', mode: 'manual' }, config),
      (err: Error & { code?: string }) => err.code === 'SI_TEMPLATE_EXEC' && /map has no entry for key "imag"/.test(err.message),
    );
    const r = checkConfig(config, basePods(config));
    assert.ok(r.failures.every((f) => f.field === 'SI_TEMPLATE_EXEC'));
    assert.throws(() => parseConfig('templateOptions:\n  missingKey: loud\n'), /templateOptions\.missingKey: must be "default", "zero", "error"/);
  });

  it('every template is checked, and pods given with -f are checked against their own problems only', () => {
    const config = parseConfig(
      `templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: ok\n        image: ok\n  extra: |\n    spec:\n      containers:\n      - name: ok2\n`,
    );
    const user = { name: 'user pod', pod: { metadata: { name: 'u' }, spec: { containers: [{ name: 'app', image: 'a', ports: [{ containerPort: 70000 }] }] } } };
    const r = checkConfig(config, [...basePods(config), user]);
    assert.deepEqual([...new Set(r.failures.map((f) => `${f.template} ${f.field}`))], ['extra spec.containers[name=ok2].image']);
  });

  it('validates as the API server: duplicates, ranges, probes, init restartPolicy', () => {
    const problems = podProblems({
      spec: {
        volumes: [{ name: 'v' }, { name: 'v' }],
        initContainers: [{ name: 'i', image: 'x', restartPolicy: 'Never' }],
        containers: [
          { name: 'a', image: 'x', ports: [{ containerPort: 0 }, { name: 'Http', containerPort: 80 }], readinessProbe: {}, env: [{ name: 'A=B' }] },
          {
            name: 'a',
            image: '',
            volumeMounts: [
              { name: 'v', mountPath: '/a' },
              { name: 'v', mountPath: '/a' },
            ],
            resources: { requests: { cpu: '2' }, limits: { cpu: '1' } },
          },
        ],
      },
    }).map((p) => `${p.field}: ${p.message.split(':')[0]}`);
    for (const want of [
      'spec.volumes[name=v].name: Duplicate value',
      'spec.initContainers[name=i].restartPolicy: Unsupported value',
      'spec.containers[name=a].ports[0].containerPort: Invalid value',
      'spec.containers[name=a].ports[1].name: Invalid value',
      'spec.containers[name=a].readinessProbe: Required value',
      'spec.containers[name=a].env[0].name: Invalid value',
      'spec.containers[name=a].name: Duplicate value',
      'spec.containers[name=a].image: Required value',
      'spec.containers[name=a].volumeMounts[1].mountPath: Invalid value',
      'spec.containers[name=a].resources.requests.cpu: Invalid value',
    ])
      assert.ok(problems.includes(want), `${want} in ${problems.join('\n')}`);
  });

  it('restricted: a hardened container passes, root with NET_ADMIN does not', () => {
    const hardened = {
      name: 's',
      securityContext: {
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
        runAsNonRoot: true,
        runAsUser: 1337,
        seccompProfile: { type: 'RuntimeDefault' },
      },
    };
    assert.deepEqual(restrictedFailures(hardened, { spec: {} }), []);
    assert.equal(restrictedFailures({ name: 'i', securityContext: { runAsUser: 0, capabilities: { add: ['NET_ADMIN'] } } }, { spec: {} }).length, 6);
  });

  it('a template that customises the app container does not make it a sidecar in the restricted report', () => {
    const config = parseConfig(
      'templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: app\n        env: [{name: X, value: "1"}]\n      - name: helper\n        image: h\n',
    );
    const r = checkConfig(config, basePods(config));
    assert.deepEqual(r.failures, []);
    assert.deepEqual(
      r.restricted.map((x) => x.container),
      ['helper'],
    );
  });

  it('serve refuses a config whose sidecar is invalid for every pod, and keeps one that fails only some', () => {
    assert.throws(() => assertServable(parseConfig(BAD)), /default sidecar \(sidecar\) gives a pod the API server would refuse for every representative pod/);
    // Fails only for pods with init containers (its name clashes there): still served.
    const some = parseConfig('templates:\n  sidecar: |\n    spec:\n      containers:\n      - name: migrate\n        image: x\n');
    assert.equal(assertServable(some), some);
    assert.equal(assertServable(defaultConfig()), defaultConfig());
  });
});
