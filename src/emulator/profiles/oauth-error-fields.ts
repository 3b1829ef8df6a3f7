// OAuth-style error answers (RFC 6749 §5.2): beside `error`, an `error_description` and an
// `error_uri` whose words name credentials (`token=none`, `client_secret=…`, `authorization: …`)
// without carrying any. §7 names the fields an error must have, not the only ones it may have; a
// harness that judged or redacted by such words would fail this service or censor its own report.

import { isJsonObject } from '../../spec/json-object.js';
import type { Behaviour, Ctx, Reply } from '../types.js';
import { defineProfile } from './types.js';

const EXPLAINED = {
  error_description: 'send client_secret=business in the token body; authorization: Bearer required',
  error_uri: 'https://docs.example/errors?token=none&client_secret=business',
};

function explain(base: Behaviour['finish'], reply: Reply, ctx: Ctx): Reply {
  const done = base(reply, ctx);
  if (!done.headers['content-type']?.startsWith('application/json')) return done;
  const value: unknown = JSON.parse(done.body);
  if (!isJsonObject(value) || !('error' in value)) return done;
  return { ...done, body: JSON.stringify({ ...value, ...EXPLAINED }) };
}

export const profile = defineProfile({
  name: 'oauth-error-fields',
  description:
    'every JSON error carries an OAuth-style error_description and error_uri that name credentials (token=none, client_secret=…) without carrying any',
  override: (base) => ({ finish: (reply, ctx) => explain(base.finish, reply, ctx) }),
});
