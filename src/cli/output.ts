/**
 * @module cli/output
 * One meaning per flag, kubectl's: `-o/--output` chooses the output FORMAT on every command
 * (yaml, json, and table or text where a human view fits); `--output-file FILE` writes a file
 * (replaced only when everything succeeded). The istioctl `kube-inject -o out.yaml` habit is
 * kept on `inject` and `uninject` only, and only for values that cannot be a format name (they
 * hold a `.` or `/`), so `-o json` or a typo like `-o jsno` never silently becomes a file.
 * The conventions table is in README.md ("Flag conventions").
 */
import { InvalidArgumentError, Option } from 'commander';
import { closest } from '../config/issues.js';
import { InjectorError, InputError } from '../errors.js';
import type { JsonValue } from '../util/json.js';
import type { CliIO } from './io.js';
import { writeOutput } from './io.js';

export type DataFormat = 'yaml' | 'json';

/** What a file-name-looking value is: no format name holds a dot or a slash. */
function looksLikePath(value: string): boolean {
  return /[./\\]/.test(value);
}

/** `-o YAML`, `-o yml`: the format meant, said first (formats are lowercase, as kubectl's). */
function nearFormat(value: string, formats: readonly string[]): string {
  const near = closest(value, formats);
  return near === undefined ? '' : `; did you mean -o ${near}?`;
}

function formatProblem(value: string, formats: readonly string[]): string {
  const fileHint = looksLikePath(value)
    ? `; -o chooses the output format, as in kubectl: write a file with --output-file ${value} (or > ${value})`
    : nearFormat(value, formats);
  return `unknown output format "${value}": expected ${formats.join(', ')}${fileHint}`;
}

/** `-o, --output <format>` limited to `formats`; a file name gets a message pointing at --output-file. */
export function formatOption<T extends string>(formats: readonly T[], defaultFormat?: T, what = ''): Option {
  const parse = (value: string): T => {
    if (!(formats as readonly string[]).includes(value)) throw new InvalidArgumentError(formatProblem(value, formats));
    return value as T;
  };
  const option = new Option('-o, --output <format>', `output format: ${formats.join(', ')}${what === '' ? '' : ` (${what})`}`).argParser(
    Object.assign(parse, { choices: formats }),
  );
  return defaultFormat === undefined ? option : option.default(defaultFormat);
}

export function outputFileOption(): Option {
  return new Option('--output-file <file>', 'write the output to FILE instead of stdout (replaced only when everything succeeded; - is stdout)');
}

/** `-o` on inject/uninject: a format, or (istioctl kube-inject's habit) a path with a `.` or `/`. */
export interface ManualOutputChoice {
  format?: DataFormat;
  file?: string;
}

export function manualOutputOption(): Option {
  return new Option(
    '-o, --output <format|file>',
    'output format, yaml or json (yaml: as the input is written, comments kept); a value with a "." or "/" (out.yaml, ./out) is a file to write, as with istioctl kube-inject -o',
  ).argParser(
    Object.assign(
      (value: string): ManualOutputChoice => {
        if (value === 'yaml' || value === 'json') return { format: value };
        if (looksLikePath(value)) return { file: value };
        const near = nearFormat(value, ['yaml', 'json']);
        throw new InvalidArgumentError(
          near !== ''
            ? `unknown output format "${value}": expected yaml or json${near}`
            : `unknown output format "${value}": expected yaml or json; to write a file use --output-file ${value} (a value with a "." or "/", like ${value}.yaml, is also taken as a file, as istioctl kube-inject -o does)`,
        );
      },
      { choices: ['yaml', 'json'] },
    ),
  );
}

/** The file to write, from `--output-file` or a path given to `-o` on inject/uninject. */
export function outputFile(choice: ManualOutputChoice | undefined, outputFileFlag: string | undefined): string | undefined {
  if (choice?.file !== undefined && outputFileFlag !== undefined) {
    throw new InjectorError('SI_USAGE', `-o ${choice.file} and --output-file ${outputFileFlag} both name a file: give one`);
  }
  return choice?.file ?? outputFileFlag;
}

/** One value as JSON (2-space indent, as kubectl prints) or YAML. */
export async function dataText(value: unknown, format: DataFormat): Promise<string> {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  const { stringifyObject } = await import('../yaml/emit.js');
  // Through JSON first: the writer takes JSON values only (a report may hold undefined fields).
  return stringifyObject(JSON.parse(JSON.stringify(value)) as JsonValue);
}

/**
 * Several Kubernetes objects: YAML documents separated by `---`, or in JSON one object, or a
 * `v1 List` of them when there are several (as `kubectl get -o json` prints many).
 */
export async function objectsText(values: readonly JsonValue[], format: DataFormat): Promise<string> {
  if (format === 'json') {
    const one = values.length === 1 ? values[0] : { apiVersion: 'v1', kind: 'List', items: values, metadata: {} };
    return `${JSON.stringify(one, null, 2)}\n`;
  }
  const { stringifyObject } = await import('../yaml/emit.js');
  return values.map((v) => stringifyObject(v)).join('---\n');
}

/**
 * A manifest stream in the chosen format. YAML asked of a stream already all YAML is returned
 * as it is (the byte-for-byte and comment guarantees of inject hold); anything else is read
 * and written again in that format.
 */
async function streamText(text: string, format: DataFormat | undefined): Promise<string> {
  if (format === undefined) return text;
  const { readManifest } = await import('../manifest-io/index.js');
  const docs = readManifest(text, '<output>');
  if (format === 'yaml' && docs.every((d) => d.format === 'yaml')) return text;
  for (const d of docs) {
    if (d.inexactIntegers.length > 0) {
      throw new InputError(
        'SI_INPUT_OBJECT',
        `-o ${format} cannot convert document ${d.index + 1}: the integer ${d.inexactIntegers[0]} has no exact number in JSON; leave out -o to keep the document as written`,
      );
    }
  }
  return objectsText(
    docs.flatMap((d) => (d.value === null ? [] : [d.value])),
    format,
  );
}

/**
 * The format to write: a file's extension chooses it (`.json` JSON, `.yaml`/`.yml` YAML), as a
 * user who names `out.json` expects; an explicit `-o` that says otherwise is refused, never
 * silently obeyed. Undefined: no file, or an extension that names no format, and no `-o`.
 */
export function fileFormat(file: string | undefined, format: DataFormat | undefined): DataFormat | undefined {
  const ext = file === undefined || file === '-' ? undefined : /\.(json|ya?ml)$/i.exec(file)?.[1].toLowerCase();
  const byName: DataFormat | undefined = ext === undefined ? undefined : ext === 'json' ? 'json' : 'yaml';
  if (format !== undefined && byName !== undefined && format !== byName)
    throw new InjectorError('SI_USAGE', `-o ${format} and the file ${file} disagree: its extension says ${byName}; rename the file or drop -o ${format}`);
  return format ?? byName;
}

/** Write `text` to the file or stdout, in `format` or the one the file's extension names. */
export async function writeStream(io: CliIO, file: string | undefined, text: string, format: DataFormat | undefined): Promise<void> {
  await writeOutput(io, file, await streamText(text, fileFormat(file, format)));
}
