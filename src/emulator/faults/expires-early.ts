// The response promises the whole lifetime; the service stops honouring the token halfway.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'expires-early',
  spec: '§3',
  description: 'tokens stop working at half their lifetime while expires_at promises the whole of it (breaks §3)',
  override: (base) => ({
    lifetime: (nowMs, ttlS) => {
      const promised = base.lifetime(nowMs, ttlS);
      return { ...promised, validUntilMs: nowMs + Math.floor((promised.validUntilMs - nowMs) / 2) };
    },
  }),
});
