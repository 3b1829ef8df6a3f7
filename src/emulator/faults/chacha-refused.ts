// A server tuned for AES-NI that drops ChaCha20: clients without AES hardware cannot connect.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'chacha-refused',
  spec: '§5.8',
  description: 'TLS_CHACHA20_POLY1305_SHA256 is not offered (breaks §5.8)',
  override: (base) => ({
    tls: {
      ...base.tls,
      ciphers: base.tls.ciphers
        .split(':')
        .filter((suite) => suite !== 'TLS_CHACHA20_POLY1305_SHA256')
        .join(':'),
    },
  }),
});
