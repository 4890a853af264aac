/**
 * @module install
 * Public surface of the install tooling: which pods reach the webhook (shared with `explain`),
 * and the generator of the install manifests (`manifests` command, kept in agreement with the
 * Helm chart under deploy/helm by a test).
 */
export { generateInstall, type InstallRequest } from './build-manifests.js';
export { type CertMode } from './options.js';
