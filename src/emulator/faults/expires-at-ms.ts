// The classic JavaScript slip: Date.now() where epoch seconds are due. The token itself lives as long as ever.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'expires-at-ms',
  spec: '§2, §5.4',
  description: 'expires_at is epoch milliseconds instead of seconds (breaks §2, §5.4)',
  override: (base) => ({
    tokenBody: (record) => ({ ...base.tokenBody(record), expires_at: record.expiresAtS * 1000 }),
  }),
});
