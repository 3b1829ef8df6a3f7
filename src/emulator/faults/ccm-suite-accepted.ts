// OpenSSL knows the CCM suites but leaves them off; listing one turns it on for TLS 1.3.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'ccm-suite-accepted',
  spec: '§5.8',
  description: 'TLS_AES_128_CCM_SHA256 is accepted besides the three allowed suites (breaks §5.8)',
  override: (base) => ({
    tls: { ...base.tls, ciphers: `${base.tls.ciphers}:TLS_AES_128_CCM_SHA256` },
  }),
});
