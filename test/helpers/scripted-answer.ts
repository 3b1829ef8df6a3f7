// An answer as the service client hands one back, for tests that script a service's statuses.

import type { Exchange } from '../../src/http/exchange.js';

export const scriptedAnswer = (
  status: number,
  headers: Record<string, string> = {},
  request = 'GET /tokens/validate',
): Exchange => ({
  request,
  status,
  headers,
  text: '',
  json: undefined,
  truncated: false,
  durationMs: 1,
  sentAt: 0,
  receivedAt: 0,
  rateLimitWaits: 0,
  echoesSecret: false,
});
