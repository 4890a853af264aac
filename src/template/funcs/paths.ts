/**
 * @module template/funcs/paths
 * Sprig's slash-path helpers (Go's path package; the `os*` variants use path/filepath, which on
 * Linux, where the injector runs, behaves the same).
 */
import { goFunc, type FuncMap } from '../value.js';

/** path.Clean: lexical normalisation ("a//b/../c/" -> "a/c", "" -> "."). */
function goPathClean(p: string): string {
  if (p === '') return '.';
  const rooted = p.startsWith('/');
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') out.pop();
      else if (!rooted) out.push('..');
      continue;
    }
    out.push(part);
  }
  const joined = out.join('/');
  if (rooted) return '/' + joined;
  return joined === '' ? '.' : joined;
}

/** path.Base */
function goPathBase(p: string): string {
  if (p === '') return '.';
  while (p.length > 0 && p.endsWith('/')) p = p.slice(0, -1);
  const i = p.lastIndexOf('/');
  if (i >= 0) p = p.slice(i + 1);
  return p === '' ? '/' : p;
}

/** path.Dir */
function goPathDir(p: string): string {
  return goPathClean(p.slice(0, p.lastIndexOf('/') + 1));
}

/** path.Ext */
function goPathExt(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

const S = 'string';

export const pathFuncs: FuncMap = {
  base: goFunc([S], goPathBase),
  dir: goFunc([S], goPathDir),
  clean: goFunc([S], goPathClean),
  ext: goFunc([S], goPathExt),
  isAbs: goFunc([S], (p: string) => p.startsWith('/')),
  osBase: goFunc([S], goPathBase),
  osDir: goFunc([S], goPathDir),
  osClean: goFunc([S], goPathClean),
  osExt: goFunc([S], goPathExt),
  osIsAbs: goFunc([S], (p: string) => p.startsWith('/')),
};
