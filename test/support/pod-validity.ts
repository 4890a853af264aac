/**
 * @module test/support/pod-validity
 * A structural check of a patched pod, independent of the injector's own code: what the
 * apiserver would refuse after our patch (the user's pod creation fails even with
 * failurePolicy Ignore), plus the status annotation's own contract. Returns the problems found.
 */

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringMapProblems(v: unknown, where: string): string[] {
  if (v === undefined || v === null) return [];
  if (!isObj(v)) return [`${where} is not a map`];
  return Object.keys(v)
    .filter((k) => typeof v[k] !== 'string')
    .map((k) => `${where}[${JSON.stringify(k)}] is not a string`);
}

interface StatusShape {
  containers?: string[] | null;
  initContainers?: string[] | null;
  volumes?: string[] | null;
}

/**
 * Problems with `pod` as a Pod: metadata/spec maps, labels and annotations maps of strings,
 * containers a non-empty list of maps with non-empty string names unique across containers,
 * init and ephemeral containers, volume names unique, every volumeMount of the `checkMountsOf`
 * containers naming a volume of the pod, container ports in range; and when `statusKey` is given
 * and present, its annotation is JSON naming only items the pod has.
 */
export function podProblems(pod: unknown, options: { statusKey?: string; checkMountsOf?: readonly string[] } = {}): string[] {
  const out: string[] = [];
  if (!isObj(pod)) return ['the pod is not a map'];
  const meta = pod.metadata;
  if (meta !== undefined && !isObj(meta)) out.push('metadata is not a map');
  const m = isObj(meta) ? meta : {};
  out.push(...stringMapProblems(m.labels, 'metadata.labels'), ...stringMapProblems(m.annotations, 'metadata.annotations'));
  const spec = pod.spec;
  if (!isObj(spec)) return [...out, 'spec is not a map'];
  if (!Array.isArray(spec.containers) || spec.containers.length === 0) out.push('spec.containers is not a non-empty list');

  const names = new Map<string, string>();
  const byName = new Map<string, Obj>();
  for (const list of ['containers', 'initContainers', 'ephemeralContainers'] as const) {
    const items = spec[list];
    if (items === undefined || items === null) continue;
    if (!Array.isArray(items)) {
      out.push(`spec.${list} is not a list`);
      continue;
    }
    items.forEach((c: unknown, i: number) => {
      if (!isObj(c)) return void out.push(`spec.${list}[${i}] is not a map`);
      if (typeof c.name !== 'string' || c.name === '') return void out.push(`spec.${list}[${i}] has no name`);
      const prev = names.get(c.name);
      if (prev !== undefined) out.push(`container name ${JSON.stringify(c.name)} appears twice (${prev} and spec.${list}[${i}])`);
      names.set(c.name, `spec.${list}[${i}]`);
      byName.set(c.name, c);
      if (Array.isArray(c.ports)) {
        for (const p of c.ports) {
          const n = isObj(p) ? p.containerPort : undefined;
          if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 65535) out.push(`${c.name}: containerPort ${JSON.stringify(n)} out of range`);
        }
      }
    });
  }
  const volumes = new Set<string>();
  if (spec.volumes !== undefined && spec.volumes !== null) {
    if (!Array.isArray(spec.volumes)) out.push('spec.volumes is not a list');
    else
      spec.volumes.forEach((v: unknown, i: number) => {
        const name = isObj(v) ? v.name : undefined;
        if (typeof name !== 'string' || name === '') return void out.push(`spec.volumes[${i}] has no name`);
        if (volumes.has(name)) out.push(`volume name ${JSON.stringify(name)} appears twice`);
        volumes.add(name);
      });
  }
  for (const cname of options.checkMountsOf ?? []) {
    const c = byName.get(cname);
    if (c === undefined) continue;
    for (const vm of Array.isArray(c.volumeMounts) ? c.volumeMounts : []) {
      const vname = isObj(vm) ? vm.name : undefined;
      if (typeof vname !== 'string' || !volumes.has(vname)) out.push(`container ${cname} mounts volume ${JSON.stringify(vname)}, which the pod does not have`);
    }
  }

  const statusKey = options.statusKey;
  const annotations = isObj(m.annotations) ? m.annotations : {};
  if (statusKey !== undefined && Object.hasOwn(annotations, statusKey)) {
    let status: StatusShape;
    try {
      status = JSON.parse(String(annotations[statusKey])) as StatusShape;
    } catch {
      return [...out, `the status annotation ${statusKey} is not JSON`];
    }
    const check = (listed: unknown, have: (n: string) => boolean, what: string): void => {
      if (listed === null || listed === undefined) return;
      if (!Array.isArray(listed)) return void out.push(`status.${what} is not a list`);
      for (const n of listed) if (typeof n !== 'string' || !have(n)) out.push(`status lists ${what} ${JSON.stringify(n)}, which the pod does not have`);
    };
    check(status.containers, (n) => byName.has(n), 'containers');
    check(status.initContainers, (n) => byName.has(n), 'initContainers');
    check(status.volumes, (n) => volumes.has(n), 'volumes');
  }
  return out;
}

/** Names the status annotation says were injected (containers and init containers). */
export function injectedContainerNames(pod: unknown, statusKey: string): string[] {
  const ann = isObj(pod) && isObj(pod.metadata) && isObj(pod.metadata.annotations) ? pod.metadata.annotations : {};
  if (!Object.hasOwn(ann, statusKey)) return [];
  try {
    const s = JSON.parse(String(ann[statusKey])) as StatusShape;
    return [...(s.containers ?? []), ...(s.initContainers ?? [])];
  } catch {
    return [];
  }
}
