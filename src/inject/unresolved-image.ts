/**
 * @module inject/unresolved-image
 * Go's text/template prints a missing value as `<no value>` (a missing map key) or `<nil>` (a
 * nil through printf), and a template that builds an image from values then renders
 * `image: <nil>/proxyv2:1.24.2`: the API server takes it, and the pod hangs in
 * ImagePullBackOff. Whatever the config and its templates, the pipeline refuses such an
 * overlay right after rendering, naming the template and the container.
 */
import { InjectionError } from '../errors.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import { quote } from '../util/describe.js';

const MARKS = ['<nil>', '<no value>'] as const;

/** Throw SI_INJECT_IMAGE when a container or init container of `overlay` has an image holding a missing value's print. */
export function assertImagesResolved(template: string, overlay: JsonObject): void {
  const spec = overlay.spec;
  if (!isPlainObject(spec)) return;
  for (const list of ['initContainers', 'containers'] as const) {
    const items = spec[list];
    if (!Array.isArray(items)) continue;
    for (const c of items) {
      if (!isPlainObject(c) || typeof c.image !== 'string') continue;
      const image = c.image;
      const mark = MARKS.find((m) => image.includes(m));
      if (mark === undefined) continue;
      const name = typeof c.name === 'string' ? c.name : '';
      throw new InjectionError(
        'SI_INJECT_IMAGE',
        `template ${quote(template)}: spec.${list}[name=${name}].image: the template printed "${mark}" into the image ${quote(image)}: ` +
          'a value the image is made of is missing from the values (or misspelt); set it (sidecar-injector config check names the missing keys)',
        { details: { template, container: name, image } },
      );
    }
  }
}
