/**
 * @module certs
 * Public surface of the certificate tooling: CA and serving-certificate generation, loading a
 * CA for renewal, key-pair validation for hot reload, and caBundle planning.
 */
export {
  generateCA,
  issueServingCert,
  issueClientCert,
  devCertificate,
  type CertificateAuthority,
} from './create-certs.js';
export { loadCA, caLoadProblem, CA_CERT_FILE, CA_KEY_FILE } from './load-ca.js';
export {
  validateKeyPair,
  validateKeyPairFiles,
} from './validate-cert.js';
export { caBundleFor } from './ca-bundle.js';
export { serviceDnsNames, splitHosts } from './names.js';
