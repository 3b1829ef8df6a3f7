// After expiry the old value comes back with a fresh expires_at: an expired token revives.

import { isLive, mintRecord } from '../behaviour.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'expired-token-reissued',
  spec: '§3',
  description: 'after expiry POST /tokens returns the old token again with a new expires_at (breaks §3)',
  override: (base) => ({
    issue: (ctx, clientId) => {
      const current = ctx.env.store.current(clientId);
      if (current === undefined || isLive(current, ctx.now)) return base.issue(ctx, clientId);
      return ctx.env.store.save(mintRecord(ctx, clientId, current.token));
    },
  }),
});
