/**
 * @module template/funcs/yaml-resolve
 * go-yaml v2's implicit typing (YAML 1.1): which plain scalars would read back as something
 * other than a string ("yes", "on", "1.0", "0x1F", "2001-12-14", "1:20", "~"). The emitter must
 * quote those, exactly as sigs.k8s.io/yaml does, so a Go or YAML 1.1 reader gets a string.
 */
import { parseFloat64, parseInt64, parseUint } from '../strconv.js';

const MAP_WORDS = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
  '<<',
]);

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const BIG_INT = /^[+-]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/;

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return d <= days;
}

const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const DATE_T = /^(\d{4})-(\d{1,2})-(\d{1,2})[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const DATE_SPACE = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?$/;

/** go-yaml's parseTimestamp (time.Parse with its four layouts). */
function isTimestamp(s: string): boolean {
  if (!/^\d{4}-/.test(s)) return false;
  const m = DATE.exec(s) ?? DATE_T.exec(s) ?? DATE_SPACE.exec(s);
  if (m === null) return false;
  if (!validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59)) return false;
  return true;
}

/** Whether go-yaml v2 would read this plain scalar as a string (and not quote it on output). */
export function resolvesToString(s: string): boolean {
  if (MAP_WORDS.has(s)) return false;
  const c = s[0];
  if (c === '.') return parseFloat64(s).err !== null;
  if (c === '+' || c === '-' || (c >= '0' && c <= '9')) {
    if (isTimestamp(s)) return false;
    const plain = s.replace(/_/g, '');
    if (parseInt64(plain, 0).err === null) return false;
    const u = parseUint(plain, 0);
    if (u.err === null) return false;
    if (YAML_STYLE_FLOAT.test(plain) && parseFloat64(plain).err === null) return false;
    if (plain.startsWith('0b') && parseUint(plain.slice(2), 2).err === null) return false;
    if (plain.startsWith('-0b') && parseInt64('-' + plain.slice(3), 2).err === null) return false;
    // sigs.k8s.io/yaml's fork also reads integers beyond 64 bits.
    if (BIG_INT.test(plain)) return false;
  }
  return true;
}

/** Strings that go-yaml quotes although they resolve to strings ("1:20" is a YAML 1.1 float). */
export function isBase60Float(s: string): boolean {
  if (s === '') return false;
  const c = s[0];
  if (!(c === '+' || c === '-' || (c >= '0' && c <= '9')) || !s.includes(':')) return false;
  return BASE60_FLOAT.test(s);
}
