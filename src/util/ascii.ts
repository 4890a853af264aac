/**
 * @module util/ascii
 * ASCII-only case folding, as CEL's `lowerAscii()` does: the webhook's decision and the compiled
 * policy compare the tutorial's opt-in values (`yes`, `On`) the same way. Full Unicode folding
 * (`toLowerCase`) would also fold, say, the Kelvin sign to `k`, which the apiserver does not.
 */
export function lowerAscii(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}
