// The throwaway PKI of the TLS tests' loopback servers: the harness's own minting (src/tls/certs)
// with the names and defaults these tests assert, and the variations they need.

import { mintPki, type Pki } from '../../src/tls/certs/mint.js';

export type TestPki = Pki;

export interface TestPkiOptions {
  /** DNS names in the leaf's subjectAltName. Default: localhost. */
  dnsNames?: string[];
  /** IP addresses in the leaf's subjectAltName. Default: 127.0.0.1. */
  ipAddresses?: string[];
  /** Default: an hour ago. In the future for a certificate that is not valid yet. */
  notBefore?: Date;
  /** Default: 365 days from now. In the past for an expired certificate. */
  notAfter?: Date;
  /** Default: the first name. */
  commonName?: string;
}

export function createTestPki(opts: TestPkiOptions = {}): TestPki {
  const altNames = [
    ...(opts.dnsNames ?? ['localhost']).map((value) => ({ type: 'dns' as const, value })),
    ...(opts.ipAddresses ?? ['127.0.0.1']).map((value) => ({ type: 'ip' as const, value })),
  ];
  return mintPki({
    ca: { commonName: 'ces-harness test CA' },
    subject: { commonName: opts.commonName ?? altNames[0]?.value ?? 'localhost' },
    altNames,
    ...(opts.notBefore ? { notBefore: opts.notBefore } : {}),
    ...(opts.notAfter ? { notAfter: opts.notAfter } : {}),
  });
}
