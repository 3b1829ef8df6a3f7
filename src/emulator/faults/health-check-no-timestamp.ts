// Alive, in text, but without the timestamp §4.2 asks for.

import { text } from '../replies.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'health-check-no-timestamp',
  spec: '§4.2',
  description: 'the health text has no timestamp ("Service is alive") (breaks §4.2)',
  override: () => ({
    healthReply: () => text(200, 'Service is alive'),
  }),
});
