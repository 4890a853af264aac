/**
 * @module testing/helm-render
 * Renders a Helm chart with the project's own Go text/template engine, for tests where `helm`
 * cannot be installed. It implements the part of Helm the sidecar-injector chart uses, and no
 * more: values coalescing (chart values.yaml, then overrides; maps merge, `null` deletes),
 * `.Values`, `.Release` (Name, Namespace, Service, IsInstall, IsUpgrade, Revision), `.Chart`
 * (Chart.yaml with Go field names), `.Files.Get`, and the functions Sprig lacks: `include`,
 * `required`, `toYaml`, `fromYaml`. Templates are rendered with `missingkey=zero` and
 * `<no value>` is removed from the output, as Helm does. Files whose name starts with `_` are
 * partials; NOTES.txt is rendered separately. Not supported: `tpl`, `lookup`, `.Capabilities`,
 * subcharts, `.Template`; a chart using them fails to parse here ("function not defined").
 *
 * The functions are pure Sprig (`sprigFuncs()`), not the injector's `templateFuncs()`: Istio's
 * map replaces `indent`, `contains` and `toYaml` with different semantics Helm does not have.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseKubeYaml } from '../config/yaml.js';
import { injectorFuncs, sprigFuncs, templateFuncs } from '../template/funcs/index.js';
import { parseTemplateSet, type FuncMap, type TemplateSet } from '../template/index.js';
import { GO_OBJECT, GoFuncError, goFunc, INTERFACE, NO_FIELD, type GoFunc, type GoObject } from '../template/value.js';
import { isPlainObject } from '../util/json.js';

export interface HelmRelease {
  name: string;
  namespace: string;
}

export interface RenderedChart {
  /** Rendered text per template path (`templates/x.yaml`), partials excluded. */
  files: Map<string, string>;
  /** Every non-empty YAML document of the rendered manifests, in file order. */
  objects: Record<string, unknown>[];
  notes?: string;
}

/** Helm's coalescing of user values over the chart's: maps merge recursively, null deletes a key. */
export function coalesceValues(base: unknown, override: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(override)) return override === undefined ? base : override;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(override)) {
    if (v === null) delete out[k];
    else out[k] = coalesceValues(out[k], v);
  }
  return out;
}

/** `.Files` as Helm exposes it: a Go value with a `Get` method (not a map: `.Files.Get "x"` passes an argument). */
function filesObject(files: Map<string, string>): GoObject {
  const get: GoFunc = goFunc(['string'], (name: string) => files.get(name) ?? '');
  return {
    [GO_OBJECT]: true,
    goType: 'chart.Files',
    getField: () => NO_FIELD,
    getMethod: (name) => (name === 'Get' ? get : undefined),
    fieldNames: () => [],
    toJSON: () => ({}),
  };
}

async function listFiles(root: string, dir = root): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(root, path)));
    else out.push(relative(root, path));
  }
  return out.sort();
}

export async function renderChart(chartDir: string, release: HelmRelease, overrides: Record<string, unknown> = {}): Promise<RenderedChart> {
  const chart = parseKubeYaml(await readFile(join(chartDir, 'Chart.yaml'), 'utf8')).value as Record<string, unknown>;
  const defaults = parseKubeYaml(await readFile(join(chartDir, 'values.yaml'), 'utf8')).value ?? {};
  const values = coalesceValues(defaults, overrides);

  const all = await listFiles(chartDir);
  const files = new Map<string, string>();
  for (const path of all) files.set(path, await readFile(join(chartDir, path), 'utf8'));
  const templates = all.filter((p) => p.startsWith('templates/'));

  let set: TemplateSet | undefined;
  const helmFuncs: FuncMap = {
    include: goFunc([ 'string', INTERFACE], (name: string, data: unknown) => set!.executeTemplate(name, data, { missingKey: 'zero' }).replaceAll('<no value>', '')),
    required: templateFuncs().required,
    // sigs.k8s.io/yaml's output without the final newline, as Helm's toYaml.
    toYaml: goFunc([INTERFACE], (v: unknown) => (injectorFuncs().toYaml.call as (x: unknown) => string)(v).replace(/\n$/, '')),
    // Helm returns a map holding "Error" instead of failing.
    fromYaml: goFunc(['string'], (text: string) => {
      try {
        const parsed = parseKubeYaml(text).value;
        return isPlainObject(parsed) ? parsed : {};
      } catch (err) {
        return { Error: (err as Error).message };
      }
    }),
    tpl: goFunc([], () => {
      throw new GoFuncError('tpl is not supported by the test shim');
    }),
  };
  const name = String(chart.name);
  set = parseTemplateSet(
    templates.map((p) => [`${name}/${p}`, files.get(p)!] as const),
    { funcs: { ...sprigFuncs(), ...helmFuncs } },
  );
  const data = {
    Values: values,
    Release: { Name: release.name, Namespace: release.namespace, Service: 'Helm', IsInstall: true, IsUpgrade: false, Revision: 1 },
    Chart: { Name: chart.name, Version: chart.version, AppVersion: chart.appVersion, Description: chart.description },
    Files: filesObject(files),
  };

  const rendered = new Map<string, string>();
  const objects: Record<string, unknown>[] = [];
  let notes: string | undefined;
  for (const path of templates) {
    const base = path.split('/').pop()!;
    if (base.startsWith('_')) continue;
    const text = set.executeTemplate(`${name}/${path}`, data, { missingKey: 'zero' }).replaceAll('<no value>', '');
    if (base === 'NOTES.txt') {
      notes = text;
      continue;
    }
    rendered.set(path, text);
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new Error(`${path}: rendered YAML does not parse: ${doc.errors[0].message}\n${text}`);
      const value = doc.toJS() as unknown;
      if (value === null || value === undefined) continue;
      if (!isPlainObject(value)) throw new Error(`${path}: a rendered document is not an object`);
      objects.push(value);
    }
  }
  return { files: rendered, objects, notes };
}
