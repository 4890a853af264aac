/**
 * @module manual-inject/types
 * Shapes shared by the manifest-level operations (`inject -f`, `uninject`, `explain`, KRM mode):
 * what they take besides the manifest and the config, and the per-document notes they hand back
 * for the caller to print (CLI: one line each on stderr; KRM: `results` entries).
 */
import type { DecisionReason } from '../inject/types.js';
import type { JsonPath } from '../manifest-io/index.js';

export interface ManualOptions {
  /** Namespace for objects without `metadata.namespace` (kubectl's `--namespace`); default `default`. */
  namespace?: string;
  /**
   * Check every injected pod as the API server would (check/validate-pod) and refuse one the
   * sidecar made invalid (SI_CONFIG_INVALID, naming the workload), as `config check` would: the
   * CLI sets it so an offline injection never writes a broken sidecar that serve would refuse.
   */
  validate?: boolean;
}

/** Which pod template a note is about. */
export interface TemplateSubject {
  /** 0-based index of the document in the stream (of the item, in KRM mode). */
  document: number;
  /** Inside a List: where the workload is (`items[2]`). */
  item?: string;
  /** Kind of the workload owning the template (`Pod` for a pod). */
  kind: string;
  name: string;
  /** The namespace the template is injected for: the object's, else the option, else `default`. */
  namespace: string;
  /** From the document root to the pod template (`spec.template`; `[]` for a Pod). */
  path: JsonPath;
}

export interface DocumentNote extends TemplateSubject {
  /** `info`: a skip or a no-op; `warning`: something the user should look at. */
  severity: 'info' | 'warning';
  /** `skipped`, `not-injected` (uninject), `warning`. */
  type: 'skipped' | 'not-injected' | 'warning';
  message: string;
  /** The injection decision's reason, for skips. */
  reason?: DecisionReason;
}

export interface ManualOutput {
  /** The whole output stream. */
  text: string;
  notes: DocumentNote[];
  /** Pod templates changed (injected, or uninjected). */
  changed: number;
  /** Pod templates left as they were. */
  unchanged: number;
}
