// For faults that leave POST /tokens deciding as it does and only change what its answer carries:
// the route's own reply, or an earlier fault's answer to it, handed to `change`.

import { parseJsonBody } from '../routes/body.js';
import { tokens } from '../routes/tokens.js';
import type { Behaviour, Ctx, Reply } from '../types.js';

export function changeTokensReply(
  base: Behaviour,
  change: (ctx: Ctx, reply: Reply) => Reply | Promise<Reply>,
): Pick<Behaviour, 'guard'> {
  return {
    guard: async (ctx, route) => {
      const earlier = await base.guard(ctx, route);
      if (route !== 'tokens') return earlier;
      // An earlier fault's answer is changed too, so faults of this kind combine.
      return change(ctx, earlier ?? (await tokens(ctx, parseJsonBody(ctx.req.body))));
    },
  };
}

/** The reply's JSON body with `extra` merged in (a non-JSON body is wrapped as `error`). */
export function withFields(reply: Reply, extra: Record<string, unknown>): Reply {
  let body: object;
  try {
    body = JSON.parse(reply.body) as object;
  } catch {
    body = { error: reply.body };
  }
  return {
    ...reply,
    headers: { ...reply.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, ...extra }),
  };
}
