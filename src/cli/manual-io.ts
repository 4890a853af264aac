/**
 * @module cli/manual-io
 * What `inject`, `uninject` and `explain` share at the edge: reading the manifest and the
 * config, the one-line notes on stderr, and the KRM function path (a ResourceList on the input
 * is answered with a ResourceList, whatever the command).
 */
import { defaultConfig, loadConfig } from '../profiles/index.js';
import type { LoadedConfig } from '../config/types.js';
import { findResourceList, type ManifestDocument, type ResourceList } from '../manifest-io/index.js';
import { describeSubject, krmFailure, krmSettings, runKrm, type DocumentNote, type KrmOperation, type KrmOutput } from '../manual-inject/index.js';
import { type CliIO } from './io.js';
import { writeStream, type DataFormat } from './output.js';

/**
 * `--config PATH`, or the built-in default (as `revision` serves it). Its load warnings go to
 * stderr unless quiet. With `gate` (the commands that inject: inject, policy, template render
 * --config) the config must pass the gate `serve` applies (check/serve-gate): invalid for every
 * pod is SI_CONFIG_INVALID, invalid for some pods is a warning naming them. The built-in config
 * is checked by the tests.
 */
export async function loadInjectorConfig(io: CliIO, path: string | undefined, quiet: boolean, gate = false, revision?: string): Promise<LoadedConfig> {
  const options = revision === undefined ? {} : { revision };
  const config = path === undefined ? defaultConfig(options) : await loadConfig(path, options);
  const warnings = [...config.warnings];
  if (gate && config.source.kind !== 'builtin') {
    const { configGate } = await import('../check/serve-gate.js');
    warnings.push(...configGate(config));
  }
  if (!quiet) for (const w of warnings) io.stderr(`warning: config: ${w}\n`);
  return config;
}

/** One line per note: `skipped Deployment "ns/web" (document 2): message (reason)`. */
function formatNote(note: DocumentNote): string {
  const subject = describeSubject(note);
  if (note.type === 'skipped') return `skipped ${subject}: ${note.message}${note.reason ? ` (${note.reason})` : ''}`;
  if (note.type === 'not-injected') return `not injected ${subject}: ${note.message}`;
  return `warning: ${subject}: ${note.message}`;
}

/** `source`: the file the notes are about, named when several were read. */
export function printNotes(io: CliIO, notes: readonly DocumentNote[], quiet: boolean, source?: string): void {
  if (quiet) return;
  let text = '';
  for (const note of notes) text += `${source === undefined ? '' : `${source}: `}${formatNote(note)}\n`;
  if (text !== '') io.stderr(text);
}

export interface KrmRun {
  operation: KrmOperation;
  configPath: string | undefined;
  namespace: string | undefined;
  output: string | undefined;
  format?: DataFormat;
}

/**
 * If the input is a ResourceList, act as a KRM function and return true. The ResourceList is
 * always written (with results); on an error the items come back unchanged and the error is
 * thrown afterwards, so the exit status is non-zero and stderr says why.
 */
export async function maybeRunKrm(io: CliIO, docs: readonly ManifestDocument[], run: KrmRun): Promise<boolean> {
  const rl = findResourceList(docs);
  if (rl === undefined) return false;
  const out = await krmOutput(io, rl, run);
  await writeStream(io, run.output, out.text, run.format);
  if (out.error !== undefined) throw out.error;
  return true;
}

async function krmOutput(io: CliIO, rl: ResourceList, run: KrmRun): Promise<KrmOutput> {
  let settings;
  try {
    settings = krmSettings(rl);
  } catch (err) {
    return krmFailure(rl, err);
  }
  let config: LoadedConfig;
  try {
    // The function's own config wins; kpt users pass it as functionConfig, not as a flag.
    config = settings.config ?? (await loadInjectorConfig(io, run.configPath, true));
    if (run.operation === 'inject' && config.source.kind !== 'builtin') (await import('../check/serve-gate.js')).configGate(config);
  } catch (err) {
    return krmFailure(rl, err, settings.results);
  }
  return runKrm(rl, run.operation, config, { namespace: settings.namespace ?? run.namespace, validate: true }, settings.results);
}
