/**
 * @module check/pods
 * The representative pods `config check` injects: plain, multi-container, with init containers,
 * with probes, and one per opt-in annotation the config's templates read (set to "true"). Each
 * is a valid Pod, so any problem in the injected pod comes from the sidecar.
 */
import type { LoadedConfig } from '../config/types.js';
import type { JsonObject } from '../util/json.js';

export interface CheckPod {
  /** Short name used in the report (`plain`, `with probes`, ...). */
  name: string;
  pod: JsonObject;
  /** Problems here come from a guessed annotation value: reported as warnings, not failures. */
  guessed?: boolean;
  /** A pod the user gave (`config check -f`): where it is, so a problem of the pod itself is blamed on it, not on the config. */
  source?: { file: string; line: number };
}

const app = (name: string, port: number, extra: JsonObject = {}): JsonObject => ({
  name,
  image: `registry.example.com/${name}:1.0`,
  ports: [{ name: 'http', containerPort: port }],
  ...extra,
});

function pod(name: string, spec: JsonObject, annotations: Record<string, string> = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'check', labels: { app: name }, annotations }, spec };
}

/** Annotation keys the templates read (`annotation .ObjectMeta "k"`, `index .ObjectMeta.Annotations "k"`), at most `limit`. */
function annotationsRead(config: Pick<LoadedConfig, 'templates'>, limit = 20): string[] {
  const keys = new Set<string>();
  const re = /(?:annotation\s+\.ObjectMeta\s+|index\s+\.ObjectMeta\.Annotations\s+|isset\s+\.ObjectMeta\.Annotations\s+)[`"]([^`"\s]+)[`"]/g;
  for (const text of Object.values(config.templates)) for (const m of text.matchAll(re)) keys.add(m[1]);
  return [...keys].sort().slice(0, limit);
}

export function representativePods(config: Pick<LoadedConfig, 'templates' | 'injectionKeys'>): CheckPod[] {
  const optIn = { [config.injectionKeys.inject]: 'true' };
  const base: CheckPod[] = [
    { name: 'plain', pod: pod('plain', { containers: [app('app', 7070)] }, optIn) },
    {
      name: 'multi-container',
      pod: pod('multi', { containers: [app('app', 7070), app('worker', 7071, { ports: [{ name: 'metrics', containerPort: 7071 }] })] }, optIn),
    },
    {
      name: 'with init containers',
      pod: pod('init', { initContainers: [{ name: 'migrate', image: 'registry.example.com/migrate:1.0' }], containers: [app('app', 7070)] }, optIn),
    },
    {
      name: 'with probes',
      pod: pod(
        'probes',
        {
          containers: [
            app('app', 7070, {
              readinessProbe: { httpGet: { path: '/ready', port: 7070 } },
              livenessProbe: { tcpSocket: { port: 7070 } },
              startupProbe: { exec: { command: ['true'] } },
            }),
          ],
        },
        optIn,
      ),
    },
  ];
  const guessed = annotationsRead(config)
    .filter((k) => k !== config.injectionKeys.inject && k !== config.injectionKeys.templates && k !== config.injectionKeys.status)
    .map(
      (k): CheckPod => ({
        name: `with annotation ${k}: "true"`,
        pod: pod('annotated', { containers: [app('app', 7070)] }, { ...optIn, [k]: 'true' }),
        guessed: true,
      }),
    );
  return [...base, ...guessed];
}

/** The base pods only (what `serve` checks a config against on load). */
export function basePods(config: Pick<LoadedConfig, 'templates' | 'injectionKeys'>): CheckPod[] {
  return representativePods(config).filter((p) => p.guessed !== true);
}
