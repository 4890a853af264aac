/**
 * @module test/support/prometheus
 * The real Prometheus 3.16 and promtool for tests, and prometheus-operator's CRDs, built and
 * copied by e2e/build/prometheus.sh into a versioned cache. Where they live: `SI_PROMETHEUS_DIR`
 * if set, else the directory `prometheus.sh --print-dir` names (it builds nothing and needs no
 * Go). When they are not built there, tests skip with the reason instead of starting a cold
 * build of minutes; CI runs prometheus.sh before `npm test`, so there they are always present.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isExecutable } from './helm.js';

const BUILD_SH = fileURLToPath(new URL('../../e2e/build/prometheus.sh', import.meta.url));

export interface PrometheusBuild {
  dir: string;
  prometheus: string;
  promtool: string;
  /** monitoring.coreos.com CRD files (PrometheusRule, ServiceMonitor, PodMonitor). */
  crds: string[];
}

/** The build, or why there is none (a reason for `skip`). A wrong SI_PROMETHEUS_DIR is a broken setup: that throws. */
export function locatePrometheus(): PrometheusBuild | { skip: string } {
  let dir = process.env.SI_PROMETHEUS_DIR;
  const fromEnv = dir !== undefined && dir !== '';
  if (!fromEnv) {
    const probe = spawnSync('bash', [BUILD_SH, '--print-dir'], { encoding: 'utf8', timeout: 30_000 });
    dir = probe.stdout?.trim().split('\n').pop() ?? '';
    if (probe.status !== 0 || dir === '') throw new Error(`${BUILD_SH} --print-dir failed (status ${probe.status}): ${probe.stderr ?? probe.error?.message}`);
  }
  const build: PrometheusBuild = {
    dir: dir!,
    prometheus: join(dir!, 'bin', 'prometheus'),
    promtool: join(dir!, 'bin', 'promtool'),
    crds: ['prometheusrules', 'servicemonitors', 'podmonitors'].map((k) => join(dir!, 'crds', `monitoring.coreos.com_${k}.yaml`)),
  };
  const missing = [build.prometheus, build.promtool].filter((f) => !isExecutable(f)).concat(build.crds.filter((f) => !existsSync(f)));
  if (missing.length === 0) return build;
  if (fromEnv) throw new Error(`SI_PROMETHEUS_DIR=${dir} lacks ${missing.join(', ')}`);
  return { skip: `Prometheus and promtool are not built (${missing[0]} is missing): run e2e/build/prometheus.sh (a cold build takes about 7 minutes)` };
}
