// A debugging aid left on: POST /tokens errors quote the request they refuse, so the client secret
// comes back JSON-escaped inside a string, where a search for the raw secret does not find it.

import { changeTokensReply, withFields } from './tokens-reply.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'reflects-request',
  spec: '§4.1, §7',
  description:
    'POST /tokens error answers (400, 401) echo the request body, secret included, as a JSON string (breaks §4.1, §7)',
  override: (base) =>
    changeTokensReply(base, (ctx, reply) =>
      reply.status >= 400 && reply.status < 500 ? withFields(reply, { request: ctx.req.body.toString('utf8') }) : reply,
    ),
});
