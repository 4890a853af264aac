/**
 * @module test/support/template-arbitraries
 * fast-check inputs shared by the template engines' property tests: template texts made of
 * token fragments (mostly nonsense, some valid), and the data they render with (`.a`, `.b.c`,
 * `.l`, `.m`: the names the fragments refer to).
 */
import fc from 'fast-check';

/** Texts of up to 40 fragments, joined. */
export function templateText(fragments: readonly string[]): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...fragments), { maxLength: 40 }).map((parts) => parts.join(''));
}

/** Data the fragments' `.a`, `.b.c`, `.l` and `.m` find (each key may be missing). */
export const templateData = fc.record(
  {
    a: fc.jsonValue({ maxDepth: 2 }),
    b: fc.option(fc.dictionary(fc.constantFrom('c', 'd', 'x'), fc.jsonValue({ maxDepth: 1 }))),
    l: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    m: fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 4 }),
  },
  { requiredKeys: [] },
);
