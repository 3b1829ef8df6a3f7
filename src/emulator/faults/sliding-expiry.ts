// Same token, but every call restarts its lifetime, so expires_at moves under a caching client.

import { isLive, mintRecord } from '../behaviour.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'sliding-expiry',
  spec: '§3',
  description:
    'each POST /tokens returns the same token but pushes expires_at (and its real expiry) forward (breaks §3)',
  override: (base) => ({
    issue: (ctx, clientId) => {
      const current = ctx.env.store.current(clientId);
      if (current === undefined || !isLive(current, ctx.now)) return base.issue(ctx, clientId);
      return ctx.env.store.save(mintRecord(ctx, clientId, current.token));
    },
  }),
});
