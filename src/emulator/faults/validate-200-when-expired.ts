// Tempting (the body does say valid:false), but §4.3 wants 401 for an expired token.

import { json } from '../replies.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'validate-200-when-expired',
  spec: '§4.3',
  description: '/tokens/validate answers 200 {"valid":false,…} for an expired token instead of 401 (breaks §4.3)',
  override: (base) => ({
    validateReply: (ctx, check) =>
      !check.ok && check.reason === 'expired'
        ? json(200, { valid: false, message: 'Token has expired' })
        : base.validateReply(ctx, check),
  }),
});
