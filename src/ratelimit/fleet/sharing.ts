// Who shares the limit a fleet meets, from the scope the probe measured. The fleet's instances use
// one credential (that is what makes them one client's fleet), so a per-client limit is shared by
// all of them just as a per-address or global one is; only a per-token limit gives each instance
// its own, when each fetches its own token. The assumption goes into the report in words.

import type { Scope } from '../types.js';

export interface Sharing {
  sharing: 'shared' | 'per-instance';
  assumption: string;
}

export function sharingOf(scope: Scope): Sharing {
  switch (scope) {
    case 'shared':
      return {
        sharing: 'shared',
        assumption: 'the limit is shared (per address or global): all N instances draw on one limiter',
      };
    case 'per-client':
      return {
        sharing: 'shared',
        assumption:
          'the limit is per client: N instances on one credential draw on one limiter (instances with credentials of their own would each have the full limit)',
      };
    case 'per-token':
      return {
        sharing: 'per-instance',
        assumption:
          'the limit is per token: each instance, fetching its own token, has a limiter of its own (instances sharing one token would share it); independent instances, so at most 64 are simulated and the totals scaled',
      };
    case 'unknown':
      return {
        sharing: 'shared',
        assumption: 'the scope was not measured: assumed shared, the safe side (N instances draw on one limiter)',
      };
  }
}
