// How public CAs issue certificates: the server certificate is signed by an intermediate CA, the
// server sends both (leaf, then intermediate), and clients trust only the root. The emulator's
// published CA file (ca_file, --ca) is that root.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'intermediate-ca',
  description:
    'the server certificate is issued by an intermediate CA that the server sends beside it; clients trust the root only',
  transport: { chain: 'intermediate' },
});
