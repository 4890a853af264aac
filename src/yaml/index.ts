/**
 * @module yaml
 * The one YAML module. Everything else in src/ reads and writes YAML through here, never
 * through a parser library directly, so there is one rule for what a plain scalar means
 * (resolve.ts: go-yaml v2 as sigs.k8s.io/yaml uses it, the way kubectl, the apiserver, Istio
 * and Helm read YAML) and one place that knows the libraries' quirks.
 *
 * - read.ts: manifests (`inject -f`, KRM), fast, as plain JSON with kubectl's limits.
 * - plain-block.ts: the plain block YAML templates render, read in one pass (same values as
 *   read.ts, or undefined for anything else: then read.ts reads it and reports errors).
 * - read-config.ts: config and data files, keeping the document so errors can name lines.
 * - emit.ts: writes JSON data as kubectl-style YAML; edit-in-place.ts splices changes into the
 *   original text. The template function `toYaml` quotes by the same rule table (go-quote.ts).
 */
export { parseYamlDocument, formatPath, MAX_DEPTH, type DuplicateKeys } from './read.js';
export { readPlainBlockYaml } from './plain-block.js';
export { locate } from './locate.js';
export { parseKubeYaml, parseKubeYamlStream, YamlSyntaxError, type ParsedYaml, type YamlStreamDocument } from './read-config.js';
export { stringifyObject } from './emit.js';
export { editInPlace } from './edit-in-place.js';
