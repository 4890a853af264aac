/**
 * @module config/select-document
 * `--config FILE` takes what a user actually has, not only our own layout: the output of
 * `kubectl get configmap istio-sidecar-injector -o yaml`, a multi-document file or a `List`
 * (`kubectl get configmaps -o yaml`) holding it among other objects, picked by name with
 * `FILE#NAME` or alone of its kind. The chosen document's text is handed on with its line and
 * column kept (padded), so every later message still points at the right line of FILE.
 * The chart's own template (`{{ ... }}` at the top level) is refused with what to run instead.
 */
import { ConfigError } from '../errors.js';
import { isPlainObject } from '../util/json.js';
import { parseKubeYamlStream, type YamlStreamDocument } from '../yaml/index.js';
import { looksLikeHelmTemplate } from './compat.js';

export interface SelectedConfig {
  /** The config text (the whole file, or one ConfigMap padded to its place in the file). */
  text: string;
  /** `FILE#NAME` when a ConfigMap was picked out of several documents. */
  name: string;
  /** Istio's mesh config (`data.mesh` of the `istio` ConfigMap) when the file holds it too. */
  mesh?: string;
}

interface Found {
  kind: string;
  name: string;
  namespace?: string;
  /** An item of a `List` (not a document of its own). */
  isListItem: boolean;
  value: Record<string, unknown>;
  /** Offsets of the object's text, when known. */
  range: readonly [number, number] | undefined;
}

const HELM_HINT =
  'this is a Helm template, render it first (helm template istiod istio/istiod -n istio-system --show-only templates/istiod-injector-configmap.yaml > injector.yaml), ' +
  'or take the rendered ConfigMap from the cluster (kubectl -n istio-system get configmap istio-sidecar-injector -o yaml > injector.yaml)';

/** Split `FILE#NAME` (only when FILE#NAME itself does not exist, checked by the caller). */
export function splitPick(path: string): { file: string; pick?: string } {
  const at = path.lastIndexOf('#');
  if (at <= 0 || at === path.length - 1) return { file: path };
  return { file: path.slice(0, at), pick: path.slice(at + 1) };
}

export function selectConfigDocument(text: string, file: string, pick?: string): SelectedConfig {
  if (looksLikeHelmTemplate(text)) throw new ConfigError('SI_CONFIG_INVALID', `${file}: ${HELM_HINT}`);
  let docs: YamlStreamDocument[];
  try {
    docs = parseKubeYamlStream(text);
  } catch {
    return { text, name: file };
  }
  if (docs.some((d) => d.error !== undefined)) {
    // A syntax error: the config parser reports it with its line.
    if (pick !== undefined) throw new ConfigError('SI_CONFIG_INVALID', `${file} is not valid YAML, so "${pick}" cannot be picked out of it`);
    return { text, name: file };
  }
  const found = collect(docs);
  const isList = docs.length === 1 && found.length > 0 && found[0].isListItem;
  if (pick === undefined && docs.filter((d) => !d.empty).length <= 1 && !isList) return { text, name: file };

  const injectors = found.filter((f) => f.kind === 'ConfigMap' && isPlainObject(f.value.data) && typeof f.value.data.config === 'string');
  const describe = (list: Found[]) => list.map((f) => `${f.kind}/${f.namespace !== undefined ? `${f.namespace}/` : ''}${f.name}`).join(', ') || 'nothing';
  let chosen: Found | undefined;
  if (pick !== undefined) {
    chosen = found.find((f) => f.kind === 'ConfigMap' && (f.name === pick || `${f.namespace}/${f.name}` === pick));
    if (chosen === undefined) throw new ConfigError('SI_CONFIG_INVALID', `${file}: no ConfigMap named "${pick}"; found ${describe(found)}`);
  } else if (injectors.length === 1) {
    chosen = injectors[0];
  } else if (injectors.length === 0) {
    throw new ConfigError(
      'SI_CONFIG_INVALID',
      `${file} holds ${found.length} objects and no injector config (a ConfigMap with data.config, such as istio-sidecar-injector); found ${describe(found)}`,
    );
  } else {
    throw new ConfigError(
      'SI_CONFIG_INVALID',
      `${file} holds ${injectors.length} injector ConfigMaps: ${describe(injectors)}; pick one with --config '${file}#NAME' (e.g. '${file}#${injectors[0].name}')`,
    );
  }
  return { text: padded(text, chosen.range), name: `${file}#${chosen.name}`, mesh: meshOf(found, chosen) };
}

function collect(docs: YamlStreamDocument[]): Found[] {
  const out: Found[] = [];
  const add = (value: unknown, range: readonly [number, number] | undefined, isListItem: boolean) => {
    if (!isPlainObject(value)) return;
    const meta = isPlainObject(value.metadata) ? value.metadata : {};
    out.push({
      kind: typeof value.kind === 'string' ? value.kind : '(no kind)',
      name: typeof meta.name === 'string' ? meta.name : '(no name)',
      namespace: typeof meta.namespace === 'string' ? meta.namespace : undefined,
      value,
      range,
      isListItem,
    });
  };
  for (const doc of docs) {
    const value: unknown = doc.toJS();
    if (isPlainObject(value) && value.kind === 'List' && Array.isArray(value.items)) {
      value.items.forEach((item: unknown, i: number) => add(item, doc.itemRange('items', i), true));
    } else {
      add(value, doc.range, false);
    }
  }
  return out;
}

/** The node's text at its own line and column: blank lines and spaces before it keep positions. */
function padded(text: string, range: readonly [number, number] | undefined): string {
  if (range === undefined) return text;
  const before = text.slice(0, range[0]);
  const lines = before.split('\n');
  const column = lines[lines.length - 1].length;
  return '\n'.repeat(lines.length - 1) + ' '.repeat(column) + text.slice(range[0], range[1]);
}

/**
 * Istio keeps the mesh config in another ConfigMap (`istio`, or `istio-REV`, key `mesh`). When
 * the file holds it beside the injector's (`kubectl get configmap istio istio-sidecar-injector
 * -o yaml`), it becomes `values.meshConfig` unless the values set one.
 */
function meshOf(found: Found[], chosen: Found): string | undefined {
  const rev = /^istio-sidecar-injector(-.+)?$/.exec(chosen.name)?.[1] ?? '';
  const mesh = found.find((f) => f.kind === 'ConfigMap' && f.name === `istio${rev}` && isPlainObject(f.value.data) && typeof f.value.data.mesh === 'string');
  return mesh === undefined ? undefined : ((mesh.value.data as Record<string, unknown>).mesh as string);
}
