// An old terminator: TLS 1.2 only. HTTP still works for 1.2 clients, so only the TLS checks notice.

import { TLS12_ECDSA_SUITES } from '../tls-suites.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'no-tls13',
  spec: '§5.8',
  description: 'only TLS 1.2 (ECDHE-ECDSA with AES-GCM or ChaCha20) is spoken, never TLS 1.3 (breaks §5.8)',
  override: () => ({
    tls: { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2', ciphers: TLS12_ECDSA_SUITES.join(':') },
  }),
});
