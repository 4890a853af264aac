/**
 * @module manual-inject
 * Manifest-level operations behind `inject -f`, `uninject`, `explain` and the KRM function
 * mode. Pure: text (or parsed documents) and a loaded config in, output text and per-document
 * notes out; printing and files are the CLI's business.
 */
export { injectManifest, injectDocuments, injectObject } from './inject-manifest.js';
export { uninjectManifest, uninjectDocuments } from './uninject-manifest.js';
export { explainManifest, type ExplainEntry, type ExplainOptions, type ExplainStep } from './explain-manifest.js';
export { formatExplainJson, formatExplainText } from './explain-format.js';
export { krmSettings, runKrm, krmFailure, type KrmOperation, type KrmOutput } from './krm-function.js';
export { describeSubject } from './pod-templates.js';
export type { DocumentNote, ManualOptions, ManualOutput, TemplateSubject } from './types.js';
