/**
 * @module check/gateway-check
 * `config check` for Istio's gateway deployment templates: each is rendered for the Gateways
 * of its class, with the data Istio's gateway deployment controller gives it
 * (istio/gateway-data.ts), and what it renders is checked as the API server would take it:
 * every document YAML with apiVersion, kind and a valid name, a Deployment's selector matching
 * its pod labels and its pod template a valid pod, a Service's ports valid and distinct, and no
 * `<no value>` printed anywhere.
 */
import type { LoadedConfig } from '../config/types.js';
import { InjectorError } from '../errors.js';
import { renderText } from '../inject/render-overlay.js';
import { GATEWAY_CLASSES, gatewayTemplateData, type GatewayClass } from '../istio/gateway-data.js';
import { meshSettings, type MeshSettings } from '../istio/mesh-config.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { parseKubeYamlStream } from '../yaml/index.js';
import { GATEWAY_INJECTION_TEMPLATE, representativeGateways } from './gateways.js';
import { podProblems } from './validate-pod.js';

export interface GatewayFinding {
  gateway: string;
  field: string;
  message: string;
  warning?: boolean;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * The class whose Gateways `template` is rendered for: one of Istio's gateway deployment
 * templates by name, in Istio compatibility (docs/migrate-from-istio.md §2), and rendering a Deployment (a top-level
 * `kind: Deployment` line), so that a config's own pod template that happens to be called
 * `waypoint` is still checked against pods.
 */
export function gatewayClassOf(config: Pick<LoadedConfig, 'compatibility' | 'templates'>, template: string | null): GatewayClass | undefined {
  if (template === null || config.compatibility.mode !== 'istio') return undefined;
  const text = Object.hasOwn(config.templates, template) ? config.templates[template] : '';
  if (!/^kind:[ \t]*Deployment[ \t]*$/m.test(text)) return undefined;
  return GATEWAY_CLASSES.find((c) => c.template === template);
}

/** Istio's `gateway` injection template, for gateway pods: by name, in Istio compatibility, injecting `istio-proxy`. */
export function isGatewayInjectionTemplate(config: Pick<LoadedConfig, 'compatibility' | 'templates'>, template: string | null): boolean {
  if (template !== GATEWAY_INJECTION_TEMPLATE || config.compatibility.mode !== 'istio') return false;
  return Object.hasOwn(config.templates, template) && config.templates[template].includes('istio-proxy');
}

/** Render `cls.template` for each representative Gateway; returns the Gateways' names and what was found. */
export function checkGatewayTemplate(config: LoadedConfig, cls: GatewayClass): { gateways: string[]; findings: GatewayFinding[] } {
  const compiled = config.compiledTemplates.get(cls.template);
  const gateways = representativeGateways(cls);
  const findings: GatewayFinding[] = [];
  if (compiled === undefined) return { gateways: [], findings };
  let mesh: MeshSettings;
  try {
    mesh = meshSettings(config);
  } catch (err) {
    if (!(err instanceof InjectorError)) throw err;
    return { gateways: [], findings: [{ gateway: 'every Gateway', field: err.code, message: err.message }] };
  }
  for (const { name, gateway } of gateways) {
    const label = `${name} (${String((gateway.metadata as JsonObject).name)}, class ${cls.className})`;
    const data = () => gatewayTemplateData(gateway, { config, mesh, gatewayClass: cls });
    if (config.templateOptions.missingKey !== 'error') {
      try {
        renderText(cls.template, compiled, data(), { missingKey: 'error' });
      } catch (err) {
        if (err instanceof InjectorError && /no entry for key/.test(err.message))
          findings.push({
            gateway: label,
            field: 'missing key',
            message: `${err.message.split('\n')[0]} (renders as empty; templateOptions.missingKey: error makes it an error)`,
            warning: true,
          });
      }
    }
    let text: string;
    try {
      text = renderText(cls.template, compiled, data(), { missingKey: config.templateOptions.missingKey });
    } catch (err) {
      if (!(err instanceof InjectorError)) throw err;
      findings.push({ gateway: label, field: err.code, message: err.message });
      continue;
    }
    for (const p of renderedProblems(text)) findings.push({ gateway: label, ...p });
  }
  return { gateways: gateways.map((g) => g.name), findings };
}

/** What the API server would refuse in a gateway template's output (a stream of objects). */
export function renderedProblems(text: string): { field: string; message: string }[] {
  const out: { field: string; message: string }[] = [];
  const docs = parseKubeYamlStream(text);
  docs.forEach((doc, i) => {
    const where = `document ${i + 1}`;
    if (doc.error !== undefined) return void out.push({ field: where, message: `the template rendered invalid YAML: ${doc.error.message}` });
    if (doc.empty) return;
    const obj = doc.toJS();
    if (obj === null || obj === undefined) return;
    if (!isPlainObject(obj)) return void out.push({ field: where, message: 'the template rendered something other than an object' });
    const meta = isPlainObject(obj.metadata) ? obj.metadata : {};
    const name = typeof meta.name === 'string' ? meta.name : '';
    const id = `${typeof obj.kind === 'string' ? obj.kind : where}/${name}`;
    for (const k of ['apiVersion', 'kind'] as const)
      if (typeof obj[k] !== 'string' || obj[k] === '') out.push({ field: `${where}.${k}`, message: 'Required value' });
    if (name === '') out.push({ field: `${id}.metadata.name`, message: 'Required value' });
    else if (!DNS1123_SUBDOMAIN.test(name) || name.length > 253)
      out.push({ field: `${id}.metadata.name`, message: `Invalid value: "${name}": must be a DNS-1123 subdomain` });
    const printed = noValue(obj, '');
    if (printed !== undefined)
      out.push({ field: `${id}${printed}`, message: 'the template printed "<no value>": a missing key (see the missing-key warning)' });
    if (obj.kind === 'Deployment') out.push(...deploymentProblems(id, obj));
    if (obj.kind === 'Service') out.push(...serviceProblems(id, obj));
  });
  return out;
}

function noValue(v: unknown, path: string): string | undefined {
  if (typeof v === 'string') return v.includes('<no value>') ? path : undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const p = noValue(v[i], `${path}[${i}]`);
      if (p !== undefined) return p;
    }
  } else if (isPlainObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      const p = noValue(x, `${path}.${k}`);
      if (p !== undefined) return p;
    }
  }
  return undefined;
}

function deploymentProblems(id: string, obj: Record<string, unknown>): { field: string; message: string }[] {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const template = isPlainObject(spec.template) ? spec.template : {};
  const meta = isPlainObject(template.metadata) ? template.metadata : {};
  const labels = isPlainObject(meta.labels) ? meta.labels : {};
  const selector = isPlainObject(spec.selector) && isPlainObject(spec.selector.matchLabels) ? spec.selector.matchLabels : undefined;
  const out = podProblems({ apiVersion: 'v1', kind: 'Pod', metadata: meta, spec: template.spec }).map((p) => ({
    field: `${id}.spec.template.${p.field}`,
    message: p.message,
  }));
  if (selector === undefined) out.push({ field: `${id}.spec.selector`, message: 'Required value' });
  else
    for (const [k, v] of Object.entries(selector))
      if (labels[k] !== v)
        out.push({ field: `${id}.spec.template.metadata.labels`, message: `Invalid value: \`selector\` does not match template \`labels\` (${k})` });
  return out;
}

function serviceProblems(id: string, obj: Record<string, unknown>): { field: string; message: string }[] {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const ports = Array.isArray(spec.ports) ? spec.ports : [];
  const out: { field: string; message: string }[] = [];
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const field = `${id}.spec.ports[${i}]`;
    if (!isPlainObject(p)) return void out.push({ field, message: 'Invalid value: not an object' });
    if (typeof p.port !== 'number' || !Number.isInteger(p.port) || p.port < 1 || p.port > 65535)
      out.push({ field: `${field}.port`, message: `Invalid value: ${JSON.stringify(p.port)}: must be between 1 and 65535, inclusive` });
    const name = typeof p.name === 'string' ? p.name : '';
    if (ports.length > 1 && name === '') out.push({ field: `${field}.name`, message: 'Required value' });
    else if (names.has(name)) out.push({ field: `${field}.name`, message: `Duplicate value: "${name}"` });
    names.add(name);
  });
  return out;
}
