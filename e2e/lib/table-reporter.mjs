// A node:test reporter that prints one row per scenario (a test, not a suite, of an e2e file):
// passed or failed, the time it took, and for a failure the first line of its reason.
// Plain JavaScript: the test runner loads reporters before any TypeScript loader applies.
import { basename } from 'node:path';

export default async function* table(source) {
  const rows = [];
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const d = event.data;
    if (d.details?.type === 'suite') continue;
    if (!d.file || !d.file.endsWith('.e2e.ts')) continue;
    const skipped = d.skip !== undefined && d.skip !== false;
    const err = d.details?.error;
    const cause = err?.cause ?? err;
    const reason = event.type === 'test:fail' ? String(cause?.message ?? cause ?? 'failed').split('\n')[0].slice(0, 160) : skipped ? String(d.skip === true ? 'skipped' : d.skip) : '';
    rows.push({ file: basename(d.file, '.e2e.ts'), name: d.name, result: event.type === 'test:fail' ? 'FAILED' : skipped ? 'SKIPPED' : 'passed', ms: d.details?.duration_ms ?? 0, reason });
  }
  const w = (n) => Math.max(...rows.map((r) => String(r[n]).length), n.length);
  const lines = ['', 'e2e scenarios', ''];
  const fw = w('file'), nw = Math.min(w('name'), 90);
  lines.push(`${'file'.padEnd(fw)}  ${'scenario'.padEnd(nw)}  result   seconds  reason`);
  for (const r of rows) {
    lines.push(`${r.file.padEnd(fw)}  ${r.name.slice(0, 90).padEnd(nw)}  ${r.result.padEnd(7)}  ${(r.ms / 1000).toFixed(1).padStart(7)}  ${r.reason}`);
  }
  const failed = rows.filter((r) => r.result === 'FAILED').length;
  const skipped = rows.filter((r) => r.result === 'SKIPPED').length;
  lines.push('', `${rows.length - failed - skipped} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`, '');
  yield lines.join('\n');
}
