/**
 * @module manifest-io/documents
 * Splits a manifest file into documents exactly as kubectl does and parses each one, keeping
 * every byte: a document that is not changed is written back as it came (comments, odd
 * separators, CRLF, BOM and all). kubectl's rules (apimachinery util/yaml): a stream whose first
 * non-blank character is `{` is a JSON stream; otherwise a line starting with `---` separates
 * documents, and only spaces or a comment may follow the `---` on that line.
 */
import { InputError } from '../errors.js';
import type { JsonValue } from '../util/json.js';
import { JsonSyntaxError, scanJsonValue, skipJsonWhitespace } from './json-stream.js';
import { MAX_DEPTH, parseYamlDocument, type DuplicateKeys } from '../yaml/index.js';

export interface ManifestDocument {
  /** File name (or `-`), for messages. */
  readonly source: string;
  /** Position in the stream, 0-based. */
  readonly index: number;
  /** The exact `---` line that opened this document (with its line break), or '' for none. */
  readonly separator: string;
  /** The exact text after the separator, up to the next separator line. */
  readonly text: string;
  /** Line (1-based, in the whole file) where `text` starts. */
  readonly line: number;
  readonly format: 'yaml' | 'json';
  /** Line ending used by the file, for re-serialised documents. */
  readonly eol: '\n' | '\r\n';
  /** The parsed data (`null` for an empty or comment-only document). */
  readonly value: JsonValue;
  /** Integer literals a JS number cannot hold exactly; such a document can pass through but not be rewritten. */
  readonly inexactIntegers: readonly string[];
  /** Set by replaceDocument (write.ts): the new data to serialise in place of `text`. */
  readonly replacement?: JsonValue;
}

export interface ReadOptions {
  /** See YamlParseOptions.duplicateKeys; default `error`. */
  readonly duplicateKeys?: DuplicateKeys;
}

/** Read a manifest stream. Throws InputError (with file, document, line, column) on bad input. */
export function readManifest(input: string | Uint8Array, source: string, options: ReadOptions = {}): ManifestDocument[] {
  const text = typeof input === 'string' ? input : decodeUtf8(input, source);
  const eol = /\r\n/.test(text.slice(0, text.indexOf('\n') + 1)) ? '\r\n' : '\n';
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const first = skipJsonWhitespace(text, bom);
  if (text[first] === '{') return readJsonStream(text, source, eol);
  return readYamlStream(text, source, eol, options);
}

function decodeUtf8(bytes: Uint8Array, source: string): string {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new InputError('SI_INPUT_YAML', 'the file is UTF-16; Kubernetes manifests must be UTF-8 (convert it, e.g. with iconv)', {
      location: { file: source },
    });
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes); // keep a BOM: output is byte for byte
  } catch {
    const bad = firstInvalidUtf8(bytes);
    const before = Buffer.from(bytes.subarray(0, bad)).toString('utf8');
    const line = before.split('\n').length;
    throw new InputError('SI_INPUT_YAML', `the file is not valid UTF-8 (byte ${bad}); save it as UTF-8`, {
      location: { file: source, line },
    });
  }
}

/** Offset of the first byte that is not part of a well-formed UTF-8 sequence. */
function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    const n = c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : 0;
    if (n === 0 || i + n > b.length - 1) return i; // not a lead byte, or cut short
    for (let k = 1; k <= n; k++) if ((b[i + k] & 0xc0) !== 0x80) return i;
    const d = b[i + 1];
    // overlong forms, UTF-16 surrogates, beyond U+10FFFF
    if ((c === 0xe0 && d < 0xa0) || (c === 0xed && d >= 0xa0) || (c === 0xf0 && d < 0x90) || (c === 0xf4 && d >= 0x90)) return i;
    i += n + 1;
  }
  return b.length;
}

const SEPARATOR_LINE = /^---[^\n]*(?:\n|$)/gm;
/** `...` at the start of a line, then a blank or the end of the line: the YAML document end marker. */
const DOCUMENT_END = /^\.\.\.(?=[ \t]|\r?\n|$)/m;

interface Separator {
  readonly start: number;
  readonly end: number;
  /** 1-based line of the `---`. */
  readonly line: number;
}

/** Every `---` line (a BOM before a leading one does not hide it), with its line number. */
function findSeparators(text: string): Separator[] {
  const found: Separator[] = [];
  let line = 1;
  let counted = 0;
  const re = new RegExp(SEPARATOR_LINE);
  if (text.startsWith('\ufeff---')) {
    const nl = text.indexOf('\n');
    found.push({ start: 0, end: nl === -1 ? text.length : nl + 1, line: 1 });
    re.lastIndex = found[0].end;
  }
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    if (m[0] === '') break; // `$` at the very end; no separator there
    line += countLines(text, counted, m.index);
    counted = m.index;
    found.push({ start: m.index, end: m.index + m[0].length, line });
  }
  return found;
}

function readYamlStream(text: string, source: string, eol: '\n' | '\r\n', options: ReadOptions): ManifestDocument[] {
  const docs: ManifestDocument[] = [];
  let separator = '';
  let textStart = 0;
  let textLine = 1;
  const push = (end: number): void => {
    const docText = text.slice(textStart, end);
    if (separator === '' && docText === '') return; // nothing before a leading `---`
    docs.push(parseYamlChunk(docText, separator, textLine, docs.length, source, eol, options));
  };
  for (const sep of findSeparators(text)) {
    push(sep.start);
    separator = text.slice(sep.start, sep.end);
    const rest = separator
      .replace(/^\ufeff/, '')
      .slice(3)
      .trim();
    if (rest !== '' && !rest.startsWith('#')) {
      throw new InputError(
        'SI_INPUT_YAML',
        `invalid document separator "${separator.trim()}": kubectl only allows a comment after "---"; move the rest to the next line`,
        { location: { file: source, document: docs.length, line: sep.line, column: 4 } },
      );
    }
    textStart = sep.end;
    textLine = sep.line + 1;
  }
  push(text.length);
  if (docs.length === 0) {
    // An empty input is one empty document, so writing it back gives the same (empty) text.
    docs.push({ source, index: 0, separator: '', text: '', line: 1, format: 'yaml', eol, value: null, inexactIntegers: [] });
  }
  return docs;
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

function parseYamlChunk(
  docText: string,
  separator: string,
  line: number,
  index: number,
  source: string,
  eol: '\n' | '\r\n',
  options: ReadOptions,
): ManifestDocument {
  let body = docText;
  const end = docText.startsWith('...') || docText.includes('\n...') ? DOCUMENT_END.exec(docText) : null;
  if (end !== null) {
    body = docText.slice(0, end.index);
    const after = docText.slice(end.index + 3);
    const stray = firstContentLine(after);
    if (stray !== -1) {
      throw new InputError('SI_INPUT_YAML', 'content after the document end marker "..." is ignored by kubectl; start the next document with "---" instead', {
        location: { file: source, document: index, line: line + countLines(docText, 0, end.index) + stray },
      });
    }
  }
  const base = { source, index, separator, text: docText, line, format: 'yaml' as const, eol };
  const contentLine = firstContentLine(body);
  if (contentLine === -1) return { ...base, value: null, inexactIntegers: [] };
  if ((body.startsWith('%') || body.includes('\n%')) && /^\s*%/.test(body.split('\n')[contentLine] ?? '')) {
    throw new InputError(
      'SI_INPUT_YAML',
      'YAML directives (%YAML, %TAG) are not supported: kubectl splits the file at "---" and the directive is left ' +
        'without its document; remove the directive line',
      { location: { file: source, document: index, line: line + contentLine, column: 1 } },
    );
  }
  const bodyForParser = index === 0 && body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  const parsed = parseYamlDocument(bodyForParser, {
    file: source,
    document: index,
    startLine: line,
    duplicateKeys: options.duplicateKeys,
  });
  return { ...base, value: parsed.value, inexactIntegers: parsed.inexactIntegers };
}

/**
 * Index (0-based line within `s`) of the first line holding anything but blanks and comments, or -1.
 * The first line of `s` may be the rest of a `...` line.
 */
function firstContentLine(s: string): number {
  let lineNo = 0;
  let i = 0;
  while (i < s.length) {
    let j = s.indexOf('\n', i);
    if (j === -1) j = s.length;
    const t = s.slice(i, j).trim();
    if (t !== '' && !t.startsWith('#') && t !== '\ufeff') return lineNo;
    lineNo++;
    i = j + 1;
  }
  return -1;
}

function readJsonStream(text: string, source: string, eol: '\n' | '\r\n'): ManifestDocument[] {
  const docs: ManifestDocument[] = [];
  let prevEnd = 0;
  let line = 1;
  let pos = skipJsonWhitespace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
  while (pos < text.length) {
    const index = docs.length;
    const valueLine = line + countLines(text, prevEnd, pos);
    let scan;
    try {
      scan = scanJsonValue(text, pos);
    } catch (err) {
      if (!(err instanceof JsonSyntaxError)) throw err;
      const at = lineColumn(text, err.offset);
      throw new InputError('SI_INPUT_YAML', `invalid JSON: ${err.message}`, {
        location: { file: source, document: index, line: at.line, column: at.column },
        cause: err,
      });
    }
    if (scan.depth > MAX_DEPTH) {
      throw new InputError('SI_INPUT_LIMIT', `nesting is deeper than ${MAX_DEPTH} levels`, {
        location: { file: source, document: index, line: valueLine },
      });
    }
    const valueText = text.slice(pos, scan.end);
    const value = JSON.parse(valueText) as JsonValue;
    docs.push({
      source,
      index,
      separator: '',
      text: text.slice(prevEnd, scan.end),
      line: line,
      format: 'json',
      eol,
      value,
      inexactIntegers: scan.inexactIntegers,
    });
    line += countLines(text, prevEnd, scan.end);
    prevEnd = scan.end;
    pos = skipJsonWhitespace(text, scan.end);
  }
  // Trailing blanks belong to the last document, so nothing is lost on the way back out.
  const last = docs[docs.length - 1];
  if (last !== undefined && prevEnd < text.length) docs[docs.length - 1] = { ...last, text: last.text + text.slice(prevEnd) };
  return docs;
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const nl = before.lastIndexOf('\n');
  return { line: countLines(text, 0, offset) + 1, column: offset - nl };
}
