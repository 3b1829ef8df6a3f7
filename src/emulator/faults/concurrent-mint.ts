// A check-then-act race: an await between "is there a live token?" and "store the new one" lets
// concurrent first calls each mint. Sequential calls still get one token.

import { isLive, mintRecord } from '../behaviour.js';
import { defineFault } from './types.js';
import { systemClock } from '../../time/clock.js';

/**
 * Long enough that requests sent together all land inside the window on a busy machine too. The
 * check warms its eight connections first, yet at 20 ms, the emulator on its own thread beside CI's
 * load and five `cutover` runs sharing the client's, the eighth came after the first had minted and
 * stored: one token, the fault unseen (ci-53e, cutover table, concurrent-mint).
 */
const RACE_WINDOW_MS = 250;

export const fault = defineFault({
  name: 'concurrent-mint',
  spec: '§4.1 rule 1',
  description: 'concurrent first POST /tokens calls each mint a different token (breaks §4.1 rule 1)',
  override: () => ({
    issue: async (ctx, clientId) => {
      const current = ctx.env.store.current(clientId);
      if (current !== undefined && isLive(current, ctx.now)) return current;
      await systemClock.sleep(RACE_WINDOW_MS);
      return ctx.env.store.save(mintRecord(ctx, clientId));
    },
  }),
});
