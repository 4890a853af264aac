/**
 * @module patch/types
 * The RFC 6902 operation shape, shared by the diff engine, the applier, the injection core's
 * results, the webhook's response and the caBundle patch. Lives with the patch engines because
 * they define it; everything else imports it from here.
 */

/** One RFC 6902 operation, as sent to the apiserver (paths already escaped with ~0/~1). */
export type JsonPatchOperation =
  | { op: 'add'; path: string; value: unknown }
  | { op: 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string }
  | { op: 'test'; path: string; value: unknown }
  | { op: 'move'; from: string; path: string }
  | { op: 'copy'; from: string; path: string };
