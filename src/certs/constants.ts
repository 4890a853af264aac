/**
 * @module certs/constants
 * File names of the certificate layout shared by `certs`, `serve --tls-dir`, the manifests and
 * a mounted `kubernetes.io/tls` Secret, and the default lifetimes. Kept apart from the X.509
 * code so commands that only need them (`--help`) do not load it.
 */
export const CA_CERT_FILE = 'ca.crt';
export const CA_KEY_FILE = 'ca.key';
export const TLS_CERT_FILE = 'tls.crt';
export const TLS_KEY_FILE = 'tls.key';

/** The CA is long-lived: replacing it means updating every caBundle that trusts it. */
export const DEFAULT_CA_VALIDITY_DAYS = 3650;
/** File-based serving certificates are renewed by hand (re-run `certs`), so a year, not a day. */
export const DEFAULT_LEAF_VALIDITY_DAYS = 365;
/** Upper bound for any validity flag: beyond this a typo (days vs hours) is more likely than intent. */
export const MAX_VALIDITY_DAYS = 36500;
