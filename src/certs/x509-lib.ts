/**
 * @module certs/x509-lib
 * The one place that loads @peculiar/x509. It needs `reflect-metadata` imported before it
 * (it throws at import otherwise) and a WebCrypto provider; both are set here so every other
 * file imports the library through this module and cannot get the order wrong.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

// node's webcrypto is a full Crypto implementation; the cast bridges lib.dom vs node typings.
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export { x509 };
