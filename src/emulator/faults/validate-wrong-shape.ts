// 200 for a valid token, but not the {valid, message} object of §4.3. Rejections stay correct.

import { json } from '../replies.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'validate-wrong-shape',
  spec: '§4.3',
  description: '/tokens/validate answers {"status":"ok"} instead of {"valid":true,"message":…} (breaks §4.3)',
  override: (base) => ({
    validateReply: (ctx, check) => (check.ok ? json(200, { status: 'ok' }) : base.validateReply(ctx, check)),
  }),
});
