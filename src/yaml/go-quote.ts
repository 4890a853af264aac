/**
 * @module yaml/go-quote
 * The writer's side of the rule table in resolve.ts: which strings go-yaml v2's emitter (behind
 * sigs.k8s.io/yaml.Marshal, Istio's and Helm's `toYaml`) writes plain, and which it quotes. A
 * string is written plain only when go-yaml would read it back as that string; its emitter also
 * quotes timestamps (which its decoder keeps as text), integers beyond 64 bits (the
 * sigs.k8s.io/yaml fork reads them as numbers) and YAML 1.1 sexagesimal numbers (`1:20`).
 */
import { resolvePlain, STRING } from './resolve.js';

const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const BIG_INT = /^[+-]?(?:0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|0[0-7]*|[1-9][0-9]*)$/;

const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const DATE_T = /^(\d{4})-(\d{1,2})-(\d{1,2})[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
const DATE_SPACE = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{1,2}):(\d{1,2})(?:[.,]\d+)?$/;

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, isLeap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
  return d <= days;
}

/** go-yaml's parseTimestamp (time.Parse with its four layouts). */
export function isTimestamp(s: string): boolean {
  if (!/^\d{4}-/.test(s)) return false;
  const m = DATE.exec(s) ?? DATE_T.exec(s) ?? DATE_SPACE.exec(s);
  if (m === null) return false;
  if (!validDate(Number(m[1]), Number(m[2]), Number(m[3]))) return false;
  if (m[4] !== undefined && (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6]) > 59)) return false;
  return true;
}

/** Whether go-yaml v2 would read this plain scalar as a string (and not quote it on output). */
export function resolvesToString(s: string): boolean {
  if (resolvePlain(s) !== STRING) return false;
  const c = s[0];
  if (c === '+' || c === '-' || (c >= '0' && c <= '9')) {
    if (isTimestamp(s)) return false;
    if (BIG_INT.test(s.replace(/_/g, ''))) return false;
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
