// RFC 6749 compares token_type case-insensitively, §2 says "Always `Bearer`": a strict client breaks.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'wrong-token-type',
  spec: '§2',
  description: 'token_type is "bearer" instead of "Bearer" (breaks §2)',
  override: (base) => ({
    tokenBody: (record) => ({ ...base.tokenBody(record), token_type: 'bearer' }),
  }),
});
