/**
 * @module yaml/end-of-input
 * go-yaml keeps a block scalar's final line break only when the text has one; both YAML
 * libraries read an input without a final break as if it had one. The readers (read.ts,
 * read-config.ts, plain-block.ts) correct the scalar that ends such an input; this says when.
 */

/**
 * The input ends without a line break, on a line with something besides spaces: the line a
 * block scalar could end on with no break of its own (a last line of spaces only is a blank
 * line of the scalar, and the line before it has its break).
 */
export function lastLineUnbroken(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  if (text.length === 0 || last === 0x0a || last === 0x0d) return false;
  const nl = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
  return /[^ \t]/.test(text.slice(nl + 1));
}
