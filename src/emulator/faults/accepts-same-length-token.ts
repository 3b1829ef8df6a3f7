// A gate that checks a bearer's shape, not its value: any token of the length and alphabet of the
// ones it hands out counts as the client's current token (a stub validator, a length check left in
// place of a lookup).

import { defineFault } from './types.js';

const ALPHABET = /^[A-Za-z0-9_.-]+$/;

export const fault = defineFault({
  name: 'accepts-same-length-token',
  spec: '§4.3, §4.4, §5.3',
  description:
    'any bearer of the length and alphabet of a real token is accepted as the current one (breaks §4.3, §4.4, §5.3)',
  override: (base) => ({
    findToken: (ctx, value) => {
      const found = base.findToken(ctx, value);
      if (found !== undefined || !ALPHABET.test(value)) return found;
      const current = ctx.env.store.current(ctx.env.credentials.clientId);
      return current !== undefined && current.token.length === value.length ? current : undefined;
    },
  }),
});
