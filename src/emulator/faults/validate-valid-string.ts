// A loosely typed backend: `valid` serialized as the string "true". A client testing `valid === true`
// reads every token as invalid.

import { json } from '../replies.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'validate-valid-string',
  spec: '§2, §4.3',
  description: '/tokens/validate answers {"valid":"true",…}: `valid` is a string, not a boolean (breaks §2, §4.3)',
  override: (base) => ({
    validateReply: (ctx, check) =>
      check.ok ? json(200, { valid: 'true', message: 'Token is valid' }) : base.validateReply(ctx, check),
  }),
});
