/**
 * @module bench/pepr/module
 * A Pepr 1.1.4 module doing the F1 mutation of the side-by-side benchmark: on Pod CREATE, append
 * the same init container, sidecar container, volumes and annotations that our injector adds to
 * F1 (read from BENCH_MUTATION, produced from our core's result), so both servers do the same
 * work per request; Pepr diffs the result into a JSON patch itself. Started the way Pepr's
 * controller starts a module, without the image's entry point (performance.md section 3):
 *
 *   KUBECONFIG=... PEPR_API_PATH=bench SSL_KEY_PATH=... SSL_CERT_PATH=... \
 *   BENCH_MUTATION=mutation.json PORT=... node module.cjs
 */
'use strict';
const fs = require('node:fs');
const { PeprModule, Capability, a } = require('pepr');

const m = JSON.parse(fs.readFileSync(process.env.BENCH_MUTATION, 'utf8'));
const sidecar = new Capability({ name: 'sidecar', description: 'inject the benchmark sidecar', namespaces: [] });

sidecar
  .When(a.Pod)
  .IsCreated()
  .Mutate((req) => {
    const spec = req.Raw.spec;
    spec.initContainers = [...(spec.initContainers || []), ...m.initContainers];
    spec.containers = [...spec.containers, ...m.containers];
    spec.volumes = [...(spec.volumes || []), ...m.volumes];
    for (const [k, v] of Object.entries(m.annotations)) req.SetAnnotation(k, v);
  });

const mod = new PeprModule(
  { description: 'sidecar-injector benchmark', pepr: { uuid: 'bench', onError: 'ignore', webhookTimeout: 10, alwaysIgnore: { namespaces: [] } } },
  [sidecar],
  { deferStart: true },
);
mod.start(Number(process.env.PORT));
