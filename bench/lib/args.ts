/**
 * @module bench/lib/args
 * `--name value` options of the bench scripts.
 */

/** The value after `name` in `argv`; `fallback` when absent, and an error naming the option when there is none. */
export function option(argv: readonly string[], name: string, fallback?: string): string {
  const i = argv.indexOf(name);
  if (i >= 0 && argv[i + 1] !== undefined) return argv[i + 1];
  if (fallback === undefined) throw new Error(`${name} is required`);
  return fallback;
}
