// "1790000000" instead of 1790000000: a loose client parses it, a typed one fails.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'expires-at-string',
  spec: '§2',
  description: 'expires_at is a string of digits, not an integer (breaks §2)',
  override: (base) => ({
    tokenBody: (record) => {
      const body = base.tokenBody(record);
      return { ...body, expires_at: String(body.expires_at) };
    },
  }),
});
