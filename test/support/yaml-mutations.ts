/**
 * @module test/support/yaml-mutations
 * Line edits that take plain block YAML to the edge of what a fast reader accepts (indentation,
 * comments, anchors, tags, quoting, flow and block scalars, keys YAML would not read as
 * strings, tabs and CRs): the readers in src/yaml that answer for a subset (block-index.ts,
 * plain-block.ts) are held to the library on real documents edited with these.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The YAML files under `dir` (`.yaml`, `.yml`, and with `injected` Istio's `.yaml.injected` goldens); none if it is absent. */
export function yamlFiles(dir: string, injected = false): string[] {
  if (!existsSync(dir)) return [];
  const pattern = injected ? /\.ya?ml(?:\.injected)?$/ : /\.ya?ml$/;
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p, injected));
    else if (pattern.test(name)) out.push(p);
  }
  return out;
}

/** Each turns one line into the lines that replace it. */
export const LINE_MUTATIONS: readonly ((line: string) => string[])[] = [
  () => [],
  (l) => [l, l],
  (l) => [` ${l}`],
  (l) => [l.replace(/^ /, '')],
  (l) => [`  ${l}`],
  (l) => [l, ''],
  (l) => [l, '   '],
  (l) => [l, '# a comment'],
  (l) => [l, '        # deep comment'],
  (l) => [`${l} # trailing`],
  (l) => [`${l}#no-space`],
  (l) => [`${l}   `],
  (l) => [l, '  continued'],
  (l) => [l, '      continued: too'],
  (l) => [l.replace(/: /, ': &a ')],
  (l) => [l.replace(/: .*/, ': *a')],
  (l) => [l.replace(/: /, ': !!str ')],
  (l) => [l.replace(/: /, ': !!int ')],
  (l) => [l.replace(/: (.*)/, ': "$1')],
  (l) => [l.replace(/: (.*)/, ": '$1'")],
  (l) => [l.replace(/: (.*)/, ': "$1"')],
  (l) => [l.replace(/: (.*)/, ': "a\\tb\\u00e9\\"c"')],
  (l) => [l.replace(/: (.*)/, ': "a\\x41"')],
  (l) => [l.replace(/: (.*)/, ": 'it''s'")],
  (l) => [l.replace(/: (.*)/, ': [$1')],
  (l) => [l.replace(/: (.*)/, ': [$1, x]')],
  (l) => [l.replace(/: (.*)/, ': {a: [1, "x"]}')],
  (l) => [l.replace(/: (.*)/, ': {a: 1,'), '  b: "2",', '}'],
  (l) => [l.replace(/: (.*)/, ': |'), '  text', '', '    more'],
  (l) => [l.replace(/: (.*)/, ': |-'), '      text'],
  (l) => [l.replace(/: (.*)/, ': >-'), '      text'],
  (l) => [l.replace(/^(\s*)(\S)/, '$1- $2')],
  (l) => [l.replace(/^(\s*)- /, '$1')],
  (l) => [l.replace(/^(\s*)- /, '$1- - ')],
  (l) => [l.replace(/^(\s*)- /, '$1-   ')],
  (l) => [l.replace(/^(\s*)([\w.-]+):/, '$1on:')],
  (l) => [l.replace(/^(\s*)([\w.-]+):/, '$1"$2":')],
  (l) => [l.replace(/^(\s*)([\w.-]+):/, '$1? $2:')],
  (l) => [l.replace(/^(\s*)([\w.-]+):/, '$1$2 x:')],
  (l) => [l.replace(/^(\s*)([\w.-]+):/, '$1<<:')],
  (l) => [l.replace(/: (.*)/, ':$1')],
  (l) => [l.replace(/: (.*)/, ': a: b')],
  (l) => [l.replace(/: (.*)/, ': -x')],
  (l) => [l.replace(/: (.*)/, ': - x')],
  (l) => [l.replace(/: (.*)/, ':')],
  (l) => [l.replace(/: (.*)/, ': yes')],
  (l) => [l.replace(/: (.*)/, ': 0644')],
  (l) => [l.replace(/: (.*)/, ': 1.5')],
  (l) => [l.replace(/: (.*)/, ': ~')],
  (l) => [l, '---'],
  (l) => [l.replace(/ /, '\t')],
  (l) => [`${l}\r`],
];

/** `text` with line `at` (modulo the line count) replaced by mutation `which` (modulo their count). */
export function mutateLine(text: string, at: number, which: number): string {
  const lines = text.split('\n');
  const k = at % lines.length;
  lines.splice(k, 1, ...LINE_MUTATIONS[which % LINE_MUTATIONS.length](lines[k]));
  return lines.join('\n');
}
