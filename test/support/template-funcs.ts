/**
 * @module test/support/template-funcs
 * Table-driven checks for the template function libraries: each row is a template (and optional
 * JSON data) with the output or error Go 1.19 + Sprig 3.2.3 produced for it (recorded with the
 * `gotemplate-ref` oracle when the row was written), rendered here through our engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTemplate } from '../../src/template/index.js';
import type { FuncMap } from '../../src/template/value.js';

export interface FuncCase {
  /** Template text (template name `t`). */
  readonly t: string;
  /** JSON data, decoded as Go's encoding/json does (default `null`). */
  readonly data?: string;
  /** Expected output. */
  readonly want?: string;
  /** Expected error, after Go's `template: t:L:C: executing "t" at <...>: ` prefix. */
  readonly err?: string;
}

const LOCATION = /^template: t:\d+:\d+: executing "t" at <.*?>: /s;

/** Render a template; errors come back as the message with the location prefix removed. */
export function render(funcs: FuncMap, t: string, data = 'null'): { out?: string; err?: string } {
  try {
    return { out: parseTemplate('t', t, { funcs }).execute(JSON.parse(data)) };
  } catch (e) {
    return { err: (e instanceof Error ? e.message : String(e)).replace(LOCATION, '') };
  }
}

/** One node:test per row. */
export function runCases(funcs: FuncMap, cases: readonly FuncCase[]): void {
  for (const c of cases) {
    test(c.t + (c.data ? ` with ${c.data}` : ''), () => {
      const got = render(funcs, c.t, c.data);
      if (c.err !== undefined) {
        assert.equal(got.err, c.err, `expected an error, got output ${JSON.stringify(got.out)}`);
      } else {
        assert.equal(got.err, undefined, `unexpected error: ${got.err}`);
        assert.equal(got.out, c.want);
      }
    });
  }
}
