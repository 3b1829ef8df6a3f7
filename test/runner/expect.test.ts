import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/http/exchange.js';
import { unauthorizedProblem } from '../../src/runner/expect.js';

const answer = (status: number, json: unknown): Exchange =>
  ({
    request: 'POST /tokens',
    status,
    headers: {},
    text: JSON.stringify(json),
    json,
    truncated: false,
    durationMs: 1,
    receivedAt: 0,
    rateLimitWaits: 0,
  }) as Exchange;

describe('unauthorizedProblem (§7: 401 with {"error":"unauthorized"})', () => {
  it('accepts the §7 refusal, extra fields allowed', () => {
    expect(unauthorizedProblem(answer(401, { error: 'unauthorized' }))).toBeUndefined();
    expect(unauthorizedProblem(answer(401, { error: 'unauthorized', detail: 'bad secret' }))).toBeUndefined();
  });

  it.each([
    ['403 instead of 401', answer(403, { error: 'unauthorized' }), /status 403/],
    ['another error text', answer(401, { error: 'invalid_client' }), /error text "invalid_client"/],
    ['no error field', answer(401, { message: 'Unauthorized' }), /without a string `error`/],
    ['not a JSON object', answer(401, 'unauthorized'), /not a JSON object/],
  ])('names what is wrong: %s', (_, ex, problem) => {
    expect(unauthorizedProblem(ex)).toMatch(problem);
  });
});
