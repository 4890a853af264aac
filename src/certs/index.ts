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
  randomSerial,
  DEFAULT_CA_VALIDITY_DAYS,
  DEFAULT_LEAF_VALIDITY_DAYS,
  CLOCK_SKEW_MS,
  MAX_VALIDITY_DAYS,
  type CertificateAuthority,
  type ServingCertificate,
  type DevCertificate,
  type GenerateCAOptions,
  type ServingCertOptions,
  type ClientCertOptions,
} from './generate.js';
export { loadCA, caLoadProblem, CA_CERT_FILE, CA_KEY_FILE, type CALoadProblem } from './load.js';
export {
  validateKeyPair,
  validateKeyPairFiles,
  certificateInfo,
  type CertificateInfo,
  type KeyPairValidation,
  type KeyPairProblem,
  type ValidateKeyPairOptions,
} from './validate.js';
export { caBundleFor, planCaBundle, DEFAULT_MAX_BUNDLE_CAS, type BundlePlan, type BundleCertificate, type PlanOptions } from './ca-bundle.js';
export { encodePem, decodePem, decodeCertificates, type PemBlock } from './pem.js';
export { serviceDnsNames, splitHosts, normalizeDnsName, normalizeIp } from './names.js';
