// Mints on every call. Earlier tokens keep working until they expire, so only "the same token
// before expiry" changes, not whether a token the harness holds is accepted.

import { mintRecord } from '../behaviour.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'token-rotates',
  spec: '§4.1 rule 1, §3',
  description: 'each POST /tokens mints a new token, even before the current one expires (breaks §4.1 rule 1, §3)',
  override: () => ({
    issue: (ctx, clientId) => ctx.env.store.save(mintRecord(ctx, clientId)),
  }),
});
