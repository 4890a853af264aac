/**
 * @module cli/choices
 * A flag whose value is one of a fixed list (Fail/Ignore, deny/allow, log levels): one parser
 * with a message naming the choices, and the list kept on the parser so shell completion offers
 * exactly these values (cli/completion-model).
 */
import { InvalidArgumentError } from 'commander';

export type ChoiceParser<T extends string> = ((value: string) => T) & { readonly choices: readonly T[] };

export function oneOf<T extends string>(...allowed: T[]): ChoiceParser<T> {
  const parse = (value: string): T => {
    if (!(allowed as string[]).includes(value))
      throw new InvalidArgumentError(`expected ${allowed.length === 2 ? allowed.join(' or ') : allowed.join(', ')} (case matters)`);
    return value as T;
  };
  return Object.assign(parse, { choices: allowed });
}

/** The choices a commander option's parser carries, if any. */
export function parserChoices(parseArg: unknown): readonly string[] | undefined {
  return typeof parseArg === 'function' && Array.isArray((parseArg as { choices?: unknown }).choices)
    ? (parseArg as unknown as ChoiceParser<string>).choices
    : undefined;
}
