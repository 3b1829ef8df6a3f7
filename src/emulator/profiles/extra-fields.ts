// Gateways and frameworks add to every answer: a request id in a header and in the body, a
// `server`/`via` header, and fields the spec does not name beside the ones it does (`scope` on
// the token, `status`/`request_id` on errors). §2 and §7 name the fields an answer must have, not
// the only ones it may have, so a conformant client ignores the rest.

import { isJsonObject } from '../../spec/json-object.js';
import type { Behaviour, Ctx, Reply } from '../types.js';
import { defineProfile } from './types.js';

let seq = 0;

/** The reply with gateway headers, and extra fields in a JSON object body. */
function decorate(base: Behaviour['finish'], reply: Reply, ctx: Ctx): Reply {
  const done = base(reply, ctx);
  const id = `req-${(++seq).toString(16).padStart(8, '0')}`;
  const headers = {
    ...done.headers,
    'x-request-id': id,
    server: 'envoy',
    via: '1.1 gateway',
    'x-content-type-options': 'nosniff',
  };
  if (!done.headers['content-type']?.startsWith('application/json')) return { ...done, headers };
  const value: unknown = JSON.parse(done.body);
  if (!isJsonObject(value)) return { ...done, headers };
  const extra = 'error' in value ? { status: done.status, request_id: id, details: [] } : { request_id: id };
  return { ...done, headers, body: JSON.stringify({ ...value, ...extra }) };
}

export const profile = defineProfile({
  name: 'extra-fields',
  description:
    'every JSON answer carries fields the spec does not name (scope, request_id, status, details) and every answer gateway headers (x-request-id, server, via)',
  override: (base) => ({
    tokenBody: (record) => ({
      ...base.tokenBody(record),
      scope: 'evaluation ach_transactions',
      issued_at: Math.floor(record.issuedAtMs / 1000),
    }),
    finish: (reply, ctx) => decorate(base.finish, reply, ctx),
  }),
});
