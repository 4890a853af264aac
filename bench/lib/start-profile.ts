/**
 * @module bench/lib/start-profile
 * What each part of `serve`'s start costs (issue 37 item 4), from a V8 CPU profile of one start
 * (`node --cpu-prof`, written when the process exits). Every sample is given to the innermost
 * part of ours its stack names, so nested work is counted once (the gate's injections under
 * `config gate`); the module loader's work (resolving, compiling, linking, running modules' top
 * level) under `node and modules` only where no part of ours is on the stack. Idle time (waiting for a timer, a socket, the
 * disk) is its own part, so the parts add up to the profile's span.
 */

/** The parts, in the order a start goes through them. */
export const START_PARTS = ['node and modules', 'config load', 'config gate', 'warm-up', 'garbage collector', 'idle', 'other'] as const;
type StartPart = (typeof START_PARTS)[number];

/** Frames (function names) that open a part of ours. */
const OURS: readonly [string, StartPart][] = [
  ['warmUp', 'warm-up'],
  ['assertServable', 'config gate'],
  ['loadConfig', 'config load'],
  ['defaultConfig', 'config load'],
];
/**
 * Node's own start and its ESM loader: resolving, reading (async: a stack of its own from the
 * root), compiling and linking modules, and running their top level; esbuild's CommonJS shims.
 */
const LOADER =
  /^(prepareMainThreadExecution|executeUserEntryPoint|loadAndTranslate|compileSourceTextModule|#translate|moduleStrategy|getModuleJobForImport|defaultLoad|getSource|readFile|readFileHandle|_instantiate|addJobsToDependencyGraph|_link|link|evaluate|run|import|requireBuiltin|compileForInternalLoader|compileForPublicLoader|__require\d*|__commonJS|__esm|__toESM)$/;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** The parts of a `.cpuprofile` (Chrome DevTools format), in ms. */
export interface StartProfile {
  spanMs: number;
  parts: Record<StartPart, number>;
}

export function startParts(profile: unknown): StartProfile {
  const p = profile as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };
  if (!Array.isArray(p?.nodes) || !Array.isArray(p.samples) || !Array.isArray(p.timeDeltas))
    throw new Error('not a V8 CPU profile (nodes, samples, timeDeltas)');
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const n of p.nodes) {
    byId.set(n.id, n);
    for (const c of n.children ?? []) parent.set(c, n.id);
  }
  const memo = new Map<number, StartPart>();
  const partOf = (id: number): StartPart => {
    const known = memo.get(id);
    if (known !== undefined) return known;
    // The innermost part of ours on the stack decides (the gate's injections are the gate's).
    let part: StartPart = 'other';
    let loader = false;
    for (let at: number | undefined = id; at !== undefined && part === 'other'; at = parent.get(at)) {
      const name = byId.get(at)?.callFrame.functionName ?? '';
      const ours = OURS.find(([f]) => f === name);
      if (ours !== undefined) part = ours[1];
      else if (name === '(garbage collector)') part = 'garbage collector';
      else if (name === '(idle)') part = 'idle';
      else if (LOADER.test(name)) loader = true;
    }
    if (part === 'other' && loader) part = 'node and modules';
    memo.set(id, part);
    return part;
  };
  const parts = Object.fromEntries(START_PARTS.map((k) => [k, 0])) as Record<StartPart, number>;
  p.samples.forEach((id, i) => {
    parts[partOf(id)] += (p.timeDeltas[i] ?? 0) / 1000;
  });
  return { spanMs: (p.endTime - p.startTime) / 1000, parts };
}
