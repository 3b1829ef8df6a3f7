// A spare emulator thread makes its certificates while it waits for its options
// (src/emulator/worker/certificates-ahead.ts): used only for options that would have the emulator
// mint the same kind, and only once.

import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { certificatesAhead } from '../../src/emulator/worker/certificates-ahead.js';

const leaf = (certPem: string) => new X509Certificate(certPem);

describe('certificates made ahead by a spare emulator thread', () => {
  it('serve the default start once: a server certificate for 127.0.0.1 that its CA signed', () => {
    const ahead = certificatesAhead();
    const set = ahead.for({ port: 0, environments: ['sandbox', 'production'], tokenTtlS: 8 });
    expect(set).toBeDefined();
    const cert = leaf(set!.certPem);
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.verify(new X509Certificate(set!.caPem).publicKey)).toBe(true);
    // A second emulator would serve the same key: it mints its own.
    expect(ahead.for({ port: 0 })).toBeUndefined();
  });

  it('are not used for another listen host or for a profile that serves an intermediate CA', () => {
    expect(certificatesAhead().for({ host: '::1' })).toBeUndefined();
    expect(certificatesAhead().for({ profiles: ['intermediate-ca'] })).toBeUndefined();
    // A profile that leaves the chain alone keeps them.
    expect(certificatesAhead().for({ profiles: ['latency'] })).toBeDefined();
  });
});
