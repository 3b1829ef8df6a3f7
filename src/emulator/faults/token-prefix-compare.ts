// A lookup that compares only the start of the bearer (a fixed-size index column, a strncmp with
// the wrong length, a cache keyed by a prefix): a token that differs after the first characters is
// taken for the one it starts like.

import { defineFault } from './types.js';

/** How many leading characters are compared. */
const COMPARED = 16;

export const fault = defineFault({
  name: 'token-prefix-compare',
  spec: '§4.3, §4.4, §5.3',
  description: `only the first ${COMPARED} characters of a bearer are compared with the tokens handed out (breaks §4.3, §4.4, §5.3)`,
  override: (base) => ({
    findToken: (ctx, value) => {
      const found = base.findToken(ctx, value);
      if (found !== undefined || value.length < COMPARED) return found;
      const like = ctx.env.store.tokens().findLast((t) => t.slice(0, COMPARED) === value.slice(0, COMPARED));
      return like === undefined ? undefined : ctx.env.store.find(like);
    },
  }),
});
