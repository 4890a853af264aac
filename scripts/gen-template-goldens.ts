/**
 * @module scripts/gen-template-goldens
 * Regenerates the template conformance expectations (testdata/template/expected/*.json) by
 * running every case in testdata/template/cases/*.yaml through Go's own text/template + Sprig
 * (the `gotemplate-ref` oracle, see /work/shared/tools/README.md). Needs Go's oracle; the test
 * that reads the result does not.
 *
 *   npx tsx scripts/gen-template-goldens.ts [TOPIC...] [--oracle PATH]
 */
import { generateGoldens, listTopics } from '../test/support/template-conformance.js';

const args = process.argv.slice(2);
let bin = process.env.GOTEMPLATE_REF ?? 'gotemplate-ref';
const topics: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--oracle') bin = args[++i] ?? bin;
  else topics.push(args[i]!);
}
const known = new Set(listTopics());
for (const t of topics) {
  if (!known.has(t)) {
    console.error(`unknown topic ${t}; topics: ${[...known].join(' ')}`);
    process.exit(2);
  }
}
try {
  const summaries = generateGoldens(topics.length > 0 ? topics : [...known], bin);
  let total = 0;
  for (const s of summaries) {
    total += s.cases;
    console.log(`${s.topic.padEnd(22)} ${String(s.cases).padStart(4)} cases  ${String(s.errors).padStart(3)} errors  ${s.changed} changed`);
    for (const w of s.warnings) console.log(`  warning: ${w}`);
  }
  console.log(`${'total'.padEnd(22)} ${String(total).padStart(4)} cases`);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
