/**
 * @module check/check
 * `config check`: inject every template of a config into representative pods (and the user's)
 * with the real pipeline, then validate each injected pod as the API server would. A failure
 * names the template, the pod, the field and (best effort) the config line that made it;
 * missing `.Values` keys are warnings whatever `templateOptions.missingKey` says; sidecar
 * containers that would fail Pod Security "restricted" are reported. Pure: no file access
 * (the caller passes the config text for line numbers).
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import { injectPod, renderPodTemplates } from '../inject/pipeline.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { checkGatewayTemplate, gatewayClassOf, isGatewayInjectionTemplate } from './gateway-check.js';
import { gatewayPod } from './gateways.js';
import type { CheckPod } from './pods.js';
import { restrictedFailures, restrictedVolumeFailures } from './restricted.js';
import { podProblems } from './validate-pod.js';
import { noValuesMessage, valuesMissing } from './no-values.js';

export interface CheckFinding {
  template: string;
  pod: string;
  field: string;
  message: string;
  /** 1-based line in `file`, when it could be found. */
  line?: number;
  file?: string;
  /** `pod`: the given pod itself is invalid (a bad annotation value, duplicate names): its file and line, not the config's. */
  blame?: 'pod';
  /** `Gateway`: `pod` names a Gateway the template was rendered for (Istio's gateway deployment templates). */
  target?: 'Gateway';
}

export interface CheckReport {
  templates: string[];
  pods: string[];
  /** Templates rendered for something other than `pods`: Istio's gateway templates, for Gateways or a gateway pod. */
  targets: { template: string; kind: 'Gateway' | 'gateway pod'; names: string[] }[];
  renders: number;
  failures: CheckFinding[];
  warnings: CheckFinding[];
  /** Warnings of the config's own load (printed as it loads), counted with the others. */
  configWarnings: string[];
  restricted: { template: string; container: string; reasons: string[] }[];
}

export interface CheckOptions {
  /** Templates to check (default: all of the config's). `null`: the ones injection selects by default. */
  templates?: readonly string[] | null;
  /** The config's text and file name, to turn a failing container into a line. */
  source?: { file: string; text: string };
}

type Obj = Record<string, unknown>;

/** Injection errors about the pod given, not the config: malformed input, a bad annotation value. */
const POD_ERRORS = /^SI_(INPUT_|INJECT_ANNOTATION$)/;

export function checkConfig(config: LoadedConfig, pods: readonly CheckPod[], options: CheckOptions = {}): CheckReport {
  const templates = options.templates === null ? [null] : (options.templates ?? Object.keys(config.templates));
  const report: CheckReport = {
    templates: templates.map((t) => t ?? config.defaultTemplates.join(',')),
    pods: pods.map((p) => p.name),
    targets: [],
    renders: 0,
    failures: [],
    warnings: [],
    configWarnings: [...config.warnings],
    restricted: [],
  };
  const seenWarnings = new Set<string>();
  const seenRestricted = new Set<string>();
  const seenPodErrors = new Set<string>();
  const noValues = valuesMissing(config);
  for (const template of templates) {
    const label = template ?? config.defaultTemplates.join(',');
    const gatewayClass = gatewayClassOf(config, template);
    if (gatewayClass !== undefined) {
      // Istiod renders these for Gateways, never into a pod: checked that way (gateway-check.ts).
      const { gateways, findings } = checkGatewayTemplate(config, gatewayClass);
      report.targets.push({ template: label, kind: 'Gateway', names: gateways });
      report.renders += gateways.length;
      for (const f of findings) {
        const finding: CheckFinding = {
          template: label,
          pod: f.gateway,
          field: f.field,
          message: f.message,
          target: 'Gateway',
          ...locate(options.source, template, f.field, f.message),
        };
        if (f.warning !== true) report.failures.push(finding);
        else if (!seenWarnings.has(`${label}\0${f.field}\0${f.message}`)) {
          seenWarnings.add(`${label}\0${f.field}\0${f.message}`);
          report.warnings.push(finding);
        }
      }
      continue;
    }
    // Istio's gateway injection template is for gateway pods (an istio-proxy container with image: auto), and those the user gave.
    const gatewayPods = isGatewayInjectionTemplate(config, template);
    const targets = gatewayPods ? [gatewayPod(config.injectionKeys), ...pods.filter((p) => p.source !== undefined)] : pods;
    if (gatewayPods) report.targets.push({ template: label, kind: 'gateway pod', names: targets.map((p) => p.name) });
    for (const p of targets) {
      report.renders++;
      const input = template === null ? p.pod : withAnnotation(p.pod, config.injectionKeys.templates, template);
      // The core refuses a `<nil>` image; the check lets it through to report it with the pod's other findings.
      const ctx = { namespace: 'check', mode: 'manual' as const, unresolvedImages: 'allow' as const };
      const add = (finding: Omit<CheckFinding, 'template' | 'pod'>, warning = p.guessed === true) => {
        const f = { template: label, pod: p.name, ...finding, ...locate(options.source, template, finding.field, finding.message) };
        if (!warning) report.failures.push(f);
        else if (!seenWarnings.has(`${label}\0${f.field}\0${f.message}`)) {
          seenWarnings.add(`${label}\0${f.field}\0${f.message}`);
          report.warnings.push(f);
        }
      };
      missingKeyWarning(config, input, template, add);
      let result;
      try {
        result = injectPod(input, ctx, config);
      } catch (err) {
        if (!(err instanceof InjectorError)) throw err;
        // A guessed annotation value the injector refuses says nothing about the sidecar.
        if (p.guessed === true && err.code === 'SI_INJECT_ANNOTATION') continue;
        if (p.source !== undefined && POD_ERRORS.test(err.code)) {
          // The pod's own problem is the same under every template: said once.
          if (seenPodErrors.has(`${p.name}\0${err.message}`)) continue;
          seenPodErrors.add(`${p.name}\0${err.message}`);
          report.failures.push({ template: label, pod: p.name, field: err.code, message: err.message, file: p.source.file, line: p.source.line, blame: 'pod' });
          continue;
        }
        add({ field: err.code, message: err.message });
        continue;
      }
      if (result.kind === 'skipped') {
        add({ field: 'decision', message: `not injected: ${result.decision.message}` }, true);
        continue;
      }
      for (const problem of injectionProblems(p.pod, result)) {
        // The guessed value itself landing in a field (a quantity annotation set to "true") is not the sidecar's fault.
        if (p.guessed === true && problem.message.includes('"true"')) continue;
        add(problem);
      }
      if (p.guessed !== true) restricted(result.pod, result.status, userContainers(p.pod), label, seenRestricted, report);
    }
  }
  // Every failure of a config without values comes from that: say it first.
  if (noValues && report.failures.length > 0)
    report.failures.unshift({ template: report.templates.join(','), pod: 'every pod', field: 'values', message: noValuesMessage(config) });
  return report;
}

/**
 * What the API server would refuse in an injected pod that it would not have refused in the
 * pod before injection (the sidecar's doing), plus fields where the template printed Go's
 * `<no value>`. Shared by `config check` and manual injection's own check (manual-inject).
 */
export function injectionProblems(
  input: unknown,
  result: { pod: JsonObject; status: { containers: string[] | null; initContainers: string[] | null; volumes: string[] | null } },
): { field: string; message: string }[] {
  const before = new Set(podProblems(input).map((x) => `${x.field}\0${x.message}`));
  const out = podProblems(result.pod)
    .filter((problem) => !before.has(`${problem.field}\0${problem.message}`))
    .map((problem) => ({ field: problem.field, message: problem.message }));
  for (const { path, printed } of noValuePaths(result.pod, result.status))
    out.push({ field: path, message: `the template printed "${printed}": a missing key (see the missing-key warning)` });
  return out;
}

/**
 * Fields of the injected containers and volumes whose text holds Go's `<no value>` (a missing
 * key printed), and images holding `<nil>` (a missing key through printf).
 */
function noValuePaths(
  pod: JsonObject,
  status: { containers: string[] | null; initContainers: string[] | null; volumes: string[] | null },
): { path: string; printed: string }[] {
  const spec = pod.spec as Obj;
  const out: { path: string; printed: string }[] = [];
  const walk = (v: unknown, path: string, depth: number) => {
    if (depth > 20) return;
    if (typeof v === 'string' && v.includes('<no value>')) out.push({ path, printed: '<no value>' });
    else if (typeof v === 'string' && path.endsWith('].image') && v.includes('<nil>')) out.push({ path, printed: '<nil>' });
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${path}[${i}]`, depth + 1));
    else if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`, depth + 1);
  };
  const lists: [string, string[] | null][] = [
    ['initContainers', status.initContainers],
    ['containers', status.containers],
    ['volumes', status.volumes],
  ];
  for (const [list, names] of lists) {
    const items = spec[list];
    if (!Array.isArray(items) || names === null) continue;
    for (const c of items)
      if (isPlainObject(c) && typeof c.name === 'string' && names.includes(c.name))
        for (const [k, x] of Object.entries(c)) walk(x, `spec.${list}[name=${c.name}].${k}`, 0);
  }
  return out;
}

function withAnnotation(pod: JsonObject, key: string, value: string): JsonObject {
  const meta = (isPlainObject(pod.metadata) ? pod.metadata : {}) as Obj;
  const annotations = (isPlainObject(meta.annotations) ? meta.annotations : {}) as Obj;
  return { ...pod, metadata: { ...meta, annotations: { ...annotations, [key]: value } } } as JsonObject;
}

/** Render once with Go's missingkey=error: a missing `.Values` key is a likely typo. */
function missingKeyWarning(
  config: LoadedConfig,
  pod: JsonObject,
  template: string | null,
  add: (f: Omit<CheckFinding, 'template' | 'pod'>, warning?: boolean) => void,
): void {
  if (config.templateOptions.missingKey === 'error') return; // the injection reports it as a failure
  try {
    renderPodTemplates(pod, { namespace: 'check', mode: 'manual' }, config, template === null ? undefined : [template], 'error');
  } catch (err) {
    if (err instanceof InjectorError && /map has no entry for key|no entry for key/.test(err.message)) {
      add({ field: 'missing key', message: `${err.message.split('\n')[0]} (renders as empty; templateOptions.missingKey: error makes it an error)` }, true);
    }
  }
}

/** Names of the pod's own containers: a template that customises them does not make them sidecars. */
function userContainers(pod: JsonObject): Set<string> {
  const spec = (isPlainObject(pod.spec) ? pod.spec : {}) as Obj;
  const names = new Set<string>();
  for (const list of ['initContainers', 'containers']) {
    const items = spec[list];
    if (Array.isArray(items)) for (const c of items) if (isPlainObject(c) && typeof c.name === 'string') names.add(c.name);
  }
  return names;
}

function restricted(
  pod: JsonObject,
  status: { containers: string[] | null; initContainers: string[] | null; volumes: string[] | null },
  user: ReadonlySet<string>,
  template: string,
  seen: Set<string>,
  report: CheckReport,
): void {
  const spec = pod.spec as Obj;
  const sidecars = new Set([...(status.containers ?? []), ...(status.initContainers ?? [])].filter((n) => !user.has(n)));
  for (const list of ['initContainers', 'containers']) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    for (const c of items) {
      if (!isPlainObject(c) || typeof c.name !== 'string' || !sidecars.has(c.name) || seen.has(`${template}\0${c.name}`)) continue;
      seen.add(`${template}\0${c.name}`);
      const reasons = restrictedFailures(c, pod);
      if (reasons.length > 0) report.restricted.push({ template, container: c.name, reasons });
    }
  }
  const volumes = new Set(status.volumes ?? []);
  if (Array.isArray(spec.volumes)) {
    for (const v of spec.volumes) {
      if (!isPlainObject(v) || typeof v.name !== 'string' || !volumes.has(v.name) || seen.has(`${template}\0volume ${v.name}`)) continue;
      seen.add(`${template}\0volume ${v.name}`);
      const reason = restrictedVolumeFailures(v);
      if (reason !== undefined) report.restricted.push({ template, container: `volume ${v.name}`, reasons: [reason] });
    }
  }
}

/**
 * The config line of a failing item, best effort: the line naming the container or volume
 * (`name: ITEM`) at or after the template's own line; else the template's line.
 */
function locate(source: CheckOptions['source'], template: string | null, field: string, message: string): { file?: string; line?: number } {
  if (source === undefined) return {};
  const lines = source.text.split('\n');
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  let start = 0;
  if (template !== null) {
    const at = lines.findIndex((l) => new RegExp(`^\\s*["']?${escape(template)}["']?:\\s*[|>]?[-+]?\\s*$`).test(l));
    if (at >= 0) start = at;
  }
  // Go's `template: NAME:LINE:COL:` in a message: that line of the block under the template's key.
  const templateLine = template !== null && start > 0 ? new RegExp(`template: ${escape(template)}:(\\d+):`).exec(message)?.[1] : undefined;
  if (templateLine !== undefined) return { file: source.file, line: start + 1 + Number(templateLine) };
  const item = /\[name=([^\]]+)\]/.exec(field)?.[1];
  if (item !== undefined) {
    const re = new RegExp(`(^|[\\s{,-])"?name"?:\\s*["']?${escape(item)}["']?\\s*(,|}|$)`);
    for (let i = start; i < lines.length; i++) if (re.test(lines[i])) return { file: source.file, line: i + 1 };
  }
  return start > 0 ? { file: source.file, line: start + 1 } : { file: source.file };
}

/** One line per finding: `FILE:LINE: template T, pod P: FIELD: MESSAGE`. */
export function formatFinding(f: CheckFinding): string {
  const where = f.file !== undefined ? `${f.file}${f.line !== undefined ? `:${f.line}` : ''}: ` : '';
  if (f.blame === 'pod') return `${where}pod ${f.pod} (the pod itself, not the config): ${f.field}: ${f.message}`;
  return `${where}template ${f.template}, ${f.target === 'Gateway' ? 'Gateway' : 'pod'} ${f.pod}: ${f.field}: ${f.message}`;
}

export function formatReport(r: CheckReport): string {
  const out: string[] = [];
  for (const f of r.failures) out.push(`FAIL ${formatFinding(f)}`);
  for (const f of r.warnings) out.push(`warning: ${formatFinding(f)}`);
  for (const x of r.restricted) out.push(`restricted: template ${x.template}: ${x.container} would fail Pod Security "restricted": ${x.reasons.join('; ')}`);
  const others = r.targets.map((t) => ` + ${t.template} x ${t.names.length} ${t.kind === 'Gateway' ? 'Gateway(s)' : 'gateway pod(s)'}`).join('');
  const forPods = r.templates.length - r.targets.length;
  out.push(
    `${r.failures.length === 0 ? 'ok' : 'FAILED'}: ${forPods} template(s) x ${r.pods.length} pod(s)${others} = ${r.renders} ${others === '' ? 'injections' : 'renders'}, ` +
      `${r.failures.length} failure(s), ${r.warnings.length + r.configWarnings.length} warning(s), ${r.restricted.length} not "restricted"`,
  );
  return `${out.join('\n')}\n`;
}
