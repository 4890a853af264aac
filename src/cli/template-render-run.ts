/**
 * @module cli/template-render-run
 * The work of `template render` (flags in template-render.ts): read the template and the data
 * (JSON, or YAML 1.1 with float64 numbers as Go decodes them), render, report errors Go-style.
 */
import { basename } from 'node:path';
import { InjectorError } from '../errors.js';
import { parseKubeYamlStream } from '../yaml/index.js';
import { readInput, type CliIO } from './io.js';
import type { DataFormat } from './output.js';
import { setOwn } from '../util/own.js';

export interface RenderOptions {
  config?: string;
  template?: string;
  filename?: string[];
  merged?: boolean;
  namespace?: string;
  data?: string;
  name?: string;
  allowEnv?: boolean;
  output?: DataFormat;
  outputFile?: string;
}

export async function renderFiles(io: CliIO, templateFile: string, opts: RenderOptions): Promise<string> {
  if (templateFile === '-' && opts.data === '-') throw new InjectorError('SI_USAGE', 'the template and the data cannot both come from stdin');
  const text = decodeUtf8(await readInput(io, templateFile), templateFile);
  const data = opts.data === undefined ? null : parseData(decodeUtf8(await readInput(io, opts.data), opts.data), opts.data);
  // Go names a template after its file; error messages then read `template: sidecar.tpl:3:5: ...`.
  const name = templateFile === '-' ? 'stdin' : basename(templateFile);
  // Loaded on use: other commands start without the template engine.
  const [{ parseTemplate }, { templateFuncs }] = await Promise.all([import('../template/index.js'), import('../template/funcs/index.js')]);
  const template = parseTemplate(name, text, { funcs: templateFuncs({ allowEnv: opts.allowEnv === true }) });
  if (opts.name === undefined) return template.execute(data);
  const defined = template.definedTemplates();
  if (!defined.includes(opts.name)) {
    throw new InjectorError(
      'SI_USAGE',
      `no template named "${opts.name}" in ${templateFile}; defined: ${defined.length > 0 ? defined.map((d: string) => `"${d}"`).join(', ') : 'none'}`,
    );
  }
  return template.executeTemplate(opts.name, data);
}

function decodeUtf8(bytes: Buffer, file: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new InjectorError('SI_INPUT_YAML', 'is not valid UTF-8 text', { location: { file: displayName(file) } });
  }
}

function displayName(file: string): string {
  return file === '-' ? '<stdin>' : file;
}

/**
 * Parse template data. Text that looks like JSON (starts with `{` or `[`, or a .json file) is
 * JSON; anything else is YAML read as go-yaml v2 and sigs.k8s.io/yaml read it (merge keys;
 * timestamps and sexagesimal numbers stay strings). Numbers stay JavaScript numbers: Go's float64.
 */
function parseData(text: string, file: string): unknown {
  const where = displayName(file);
  const trimmed = text.trimStart();
  if (file.endsWith('.json') || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      if (file.endsWith('.json')) throw jsonError(err as Error, text, where);
      // Not JSON after all (e.g. a YAML flow mapping): fall through to YAML.
    }
  }
  const docs = parseKubeYamlStream(text);
  // An empty stream (or only comments) is nil data, as Go decodes an empty values file.
  const real = docs.filter((d) => !d.empty || d.error !== undefined);
  if (real.length > 1) {
    throw new InjectorError('SI_INPUT_YAML', `holds ${real.length} YAML documents; template data must be one document`, {
      location: { file: where },
    });
  }
  const doc = real[0];
  if (doc === undefined) return null;
  const first = doc.error;
  if (first !== undefined) {
    throw new InjectorError('SI_INPUT_YAML', `invalid YAML: ${first.message}`, {
      cause: first.cause,
      location: { file: where, ...(first.line !== undefined ? { line: first.line, column: first.column } : {}) },
    });
  }
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (err) {
    throw new InjectorError('SI_INPUT_LIMIT', `YAML aliases expand too much: ${(err as Error).message}`, {
      cause: err,
      location: { file: where },
    });
  }
  return toGoJson(value, where, '');
}

/** Reject what JSON (and so Go's YAML -> JSON decode) cannot hold: .inf, .nan, binary. */
function toGoJson(value: unknown, where: string, path: string): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) {
      throw new InjectorError('SI_INPUT_YAML', `value at ${path || 'the top level'} is ${value}, which JSON cannot represent`, {
        location: { file: where },
      });
    }
    return value;
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((v, i) => toGoJson(v, where, `${path}[${i}]`));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      setOwn(out, k, toGoJson(v, where, `${path}.${k}`));
    }
    return out;
  }
  throw new InjectorError('SI_INPUT_YAML', `value at ${path || 'the top level'} is not plain data (strings, numbers, booleans, lists, maps)`, {
    location: { file: where },
  });
}

function jsonError(err: Error, text: string, where: string): InjectorError {
  const at = jsonErrorOffset(text);
  if (at < 0) return new InjectorError('SI_INPUT_YAML', `invalid JSON: ${err.message}`, { cause: err, location: { file: where } });
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - (before.lastIndexOf('\n') + 1) + 1;
  const what = at >= text.length ? 'unexpected end of input' : `unexpected ${JSON.stringify(String.fromCodePoint(text.codePointAt(at)!))}`;
  return new InjectorError('SI_INPUT_YAML', `invalid JSON: ${what}`, { cause: err, location: { file: where, line, column } });
}

/**
 * Offset of the first JSON syntax error in text (RFC 8259), or -1 if none is found. V8's
 * JSON.parse messages do not always carry a position, and users need a line number.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const fail = (): never => {
    throw new JsonSyntaxAt(i);
  };
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const expect = (ch: string): void => {
    ws();
    if (text[i] !== ch) fail();
    i++;
  };
  const str = (): void => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail();
      const ch = text.charCodeAt(i);
      if (ch === 0x22) {
        i++;
        return;
      }
      if (ch < 0x20) fail();
      if (ch === 0x5c) {
        i++;
        const e = text[i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 5;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail();
      }
      i++;
    }
  };
  const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (c === '{') {
          ws();
          if (text[i] !== '"') fail();
          str();
          expect(':');
        }
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === close) {
          i++;
          return;
        }
        fail();
      }
    }
    if (c === '"') return str();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m === null || m[0].length === 0) fail();
    i += m![0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) fail();
    return -1;
  } catch (e) {
    if (e instanceof JsonSyntaxAt) return e.offset;
    return -1; // nested too deeply to scan: no position
  }
}

class JsonSyntaxAt {
  constructor(readonly offset: number) {}
}
