// TLS 1.3 is still preferred, so only a client that insists on 1.2 notices.

import { TLS12_ECDSA_SUITES } from '../tls-suites.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'tls12-accepted',
  spec: '§5.8',
  description: 'TLS 1.2 handshakes are accepted too (breaks §5.8)',
  override: (base) => ({
    tls: { ...base.tls, minVersion: 'TLSv1.2', ciphers: [base.tls.ciphers, ...TLS12_ECDSA_SUITES].join(':') },
  }),
});
