// §4.1 rule 1 under concurrency: simultaneous first requests of one client get one token.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { start, tokenOf, type Running } from './support/client.js';

let s: Running;
beforeAll(async () => {
  s = await start({ rateLimit: { rps: 0, burst: 0 } });
});
afterAll(() => s.close());

/** Opens 20 connections first, so the token requests arrive together, not a TLS handshake apart. */
const warm = () => Promise.all(Array.from({ length: 20 }, () => s.call('POST', '/tokens/health_check')));

it('answers 20 concurrent first POST /tokens with one token', async () => {
  await warm();
  const answers = await Promise.all(Array.from({ length: 20 }, () => s.issue()));
  const tokens = new Set(answers.map((a) => tokenOf(a).token));
  expect(tokens.size).toBe(1);
});

it('answers 20 concurrent POST /tokens right after expiry with one new token', async () => {
  const old = tokenOf(await s.issue());
  s.clock.set(old.expiresAt * 1000);
  await warm();
  const answers = await Promise.all(Array.from({ length: 20 }, () => s.issue()));
  const tokens = new Set(answers.map((a) => tokenOf(a).token));
  expect(tokens.size).toBe(1);
  expect(tokens.has(old.token)).toBe(false);
});
