/**
 * @module istio/quantity
 * Kubernetes resource quantities in canonical form (`2000m` -> `2`, `1024Mi` -> `1Gi`), as Go's
 * resource.Quantity marshals them. Used where we write Go-marshalled JSON ourselves (Istio's
 * overrides annotation) and by tests comparing with Go's output.
 */

/** resource.Quantity's canonical text (enough for comparison: decimal and binary suffixes). */
export function canonicalQuantity(text: string): string {
  const m = /^([+-]?)(\d+)(?:\.(\d+))?(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$/.exec(text.trim());
  if (m === null) return text;
  const [, sign, int, frac = '', suffix = ''] = m;
  const binary: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
  const decimal: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
  // value in nano-units
  let nanos = BigInt(int + frac.padEnd(9, '0').slice(0, 9));
  if (suffix in binary) nanos *= 1024n ** BigInt(binary[suffix]);
  else nanos = decimal[suffix] >= 0 ? nanos * 10n ** BigInt(decimal[suffix]) : nanos / 10n ** BigInt(-decimal[suffix]);
  if (nanos === 0n) return '0';
  if (suffix in binary && nanos % 1_000_000_000n === 0n) {
    let units = nanos / 1_000_000_000n;
    if (units >= 1024n) {
      let i = 0;
      while (units % 1024n === 0n && i < 6) {
        units /= 1024n;
        i++;
      }
      if (i > 0) return `${sign}${units}${['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'][i]}`;
    }
  }
  const exps: [number, string][] = [
    [18, 'E'],
    [15, 'P'],
    [12, 'T'],
    [9, 'G'],
    [6, 'M'],
    [3, 'k'],
    [0, ''],
    [-3, 'm'],
    [-6, 'u'],
    [-9, 'n'],
  ];
  for (const [e, s] of exps) {
    const unit = 10n ** BigInt(e + 9);
    if (nanos % unit === 0n) return `${sign}${nanos / unit}${s}`;
  }
  return text;
}
