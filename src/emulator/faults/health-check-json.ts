// The usual health endpoint shape, which §4.2 explicitly says this one is not.

import { json } from '../replies.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'health-check-json',
  spec: '§4.2',
  description: 'the health check answers a JSON object {status, timestamp} instead of a line of text (breaks §4.2)',
  override: () => ({
    healthReply: (nowMs) => json(200, { status: 'alive', timestamp: new Date(nowMs).toISOString() }),
  }),
});
