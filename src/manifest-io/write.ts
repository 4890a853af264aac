/**
 * @module manifest-io/write
 * Puts a manifest stream back together. A document nobody replaced is written exactly as it was
 * read (separator line and text, byte for byte). A replaced YAML one is edited in place where its
 * data changed (edit-in-place.ts); when that is not possible, and for JSON, it is re-serialised
 * in its own format and keeps its separator, the comment and blank lines that led it, and
 * anything after its body (trailing comments, a `...` marker).
 */
import { InputError } from '../errors.js';
import type { JsonValue } from '../util/json.js';
import type { ManifestDocument } from './documents.js';
import { editInPlace, stringifyObject } from '../yaml/index.js';

/** A copy of `doc` that writeManifest serialises from `value` instead of its original text. */
export function replaceDocument(doc: ManifestDocument, value: JsonValue): ManifestDocument {
  if (doc.inexactIntegers.length > 0) {
    throw new InputError(
      'SI_INPUT_OBJECT',
      `cannot rewrite this document: integer ${doc.inexactIntegers[0]} is too large to keep exactly ` +
        '(over 2^53); quote it as a string if it is not used as a number',
      { location: { file: doc.source, document: doc.index, line: doc.line } },
    );
  }
  return { ...doc, replacement: value };
}

/** The whole stream as text: original documents verbatim, replaced ones re-serialised. */
export function writeManifest(docs: readonly ManifestDocument[]): string {
  let out = '';
  for (const doc of docs) out += doc.separator + documentText(doc);
  return out;
}

/** The text of one document (without its separator line). */
export function documentText(doc: ManifestDocument): string {
  if (doc.replacement === undefined) return doc.text;
  // YAML: edit only what changed, so every other line keeps its text, quoting and comments.
  if (doc.format === 'yaml') {
    const edited = editInPlace(doc.text, doc.value, doc.replacement, doc.eol);
    if (edited !== undefined) return edited;
  }
  const { lead, trail } = doc.format === 'json' ? jsonTrivia(doc.text) : yamlTrivia(doc.text);
  const body = doc.format === 'json' ? JSON.stringify(doc.replacement, null, 2).replaceAll('\n', doc.eol) : stringifyObject(doc.replacement, { eol: doc.eol });
  return lead + body + trail;
}

/** `...` at the start of a line, then a blank or the end of the line: the YAML document end marker. */
const DOCUMENT_END = /^\.\.\.(?=[ \t]|\r?\n|$)/m;

/** Whitespace around the JSON value. A value that ended a line keeps its line break. */
function jsonTrivia(text: string): { lead: string; trail: string } {
  const lead = /^\s*/.exec(text)?.[0] ?? '';
  const trail = /\s*$/.exec(text.slice(lead.length))?.[0] ?? '';
  return { lead, trail };
}

/**
 * Leading lines that are blank or comments, and everything after the body: trailing blank or
 * column-0 comment lines, or the `...` end marker and what follows it. (Indented `#` lines at the
 * end may belong to a block scalar, so they count as body, which is replaced.)
 */
function yamlTrivia(text: string): { lead: string; trail: string } {
  // Leading trivia: whole lines from the start.
  let leadEnd = 0;
  while (leadEnd < text.length) {
    const nl = text.indexOf('\n', leadEnd);
    const lineEnd = nl === -1 ? text.length : nl + 1;
    if (!isTriviaLine(text.slice(leadEnd, lineEnd), true)) break;
    leadEnd = lineEnd;
  }
  let lead = text.slice(0, leadEnd);
  if (text.startsWith('\ufeff', leadEnd)) lead += '\ufeff'; // a BOM right before the content
  // The body ends at a `...` marker if there is one.
  const marker = text.includes('...') ? DOCUMENT_END.exec(text) : null;
  const bodyEnd = marker !== null && marker.index >= leadEnd ? marker.index : text.length;
  // Trailing trivia: whole lines backwards from there.
  let trailStart = bodyEnd;
  while (trailStart > leadEnd) {
    // The line that ends at trailStart (its own line break excluded from the search).
    const searchFrom = text[trailStart - 1] === '\n' ? trailStart - 2 : trailStart - 1;
    const lineStart = searchFrom < 0 ? 0 : text.lastIndexOf('\n', searchFrom) + 1;
    if (lineStart < leadEnd || !isTriviaLine(text.slice(lineStart, trailStart), false)) break;
    trailStart = lineStart;
  }
  let trail = text.slice(trailStart);
  // The serialised body ends with a line break; keep a trailer from gluing onto its last line.
  if (trail !== '' && trailStart > 0 && text[trailStart - 1] !== '\n') trail = '\n' + trail;
  return { lead, trail };
}

function isTriviaLine(line: string, leading: boolean): boolean {
  const t = line.replace(/^\ufeff/, '');
  if (t.trim() === '') return true;
  return leading ? t.trimStart().startsWith('#') : t.startsWith('#');
}
