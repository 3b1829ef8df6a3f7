// §4.4 leaves the business payloads to the user, and a real service validates them: the harness's
// default `{}` is refused with 422 (or 400) behind a bearer gate that accepted the token. The token
// passed, so nothing may say "token refused"; the limit passed, so no rate-limit probe may count
// the 422 as its refusal or as a failed recovery.

import { json } from '../replies.js';
import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'business-rejects-payload',
  description:
    'business endpoints accept the token but refuse the payload with 422 invalid_payload, as a service that validates its requests does with the default `{}`',
  override: () => ({
    businessReply: (_ctx, route) =>
      json(422, { error: 'invalid_payload', message: `the ${route} request is missing required fields` }),
  }),
});
