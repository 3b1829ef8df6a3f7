// Statuses and headers stay; only the bodies become text, as a bare proxy would send them.

import { TEXT_TYPE } from '../replies.js';
import type { Reply } from '../types.js';
import { defineFault } from './types.js';

const asText = (reply: Reply, body: string): Reply => ({
  ...reply,
  headers: { ...reply.headers, 'content-type': TEXT_TYPE },
  body,
});

export const fault = defineFault({
  name: 'error-body-not-json',
  spec: '§7',
  description: '401 and 429 bodies are plain text, not JSON objects with `error` (breaks §7)',
  override: (base) => ({
    unauthorized: (kind) => asText(base.unauthorized(kind), 'Unauthorized'),
    rateLimited: (retryAfterS) => asText(base.rateLimited(retryAfterS), 'Too Many Requests'),
  }),
});
