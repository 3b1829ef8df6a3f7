// The `ratelimit` command's own token (src/ratelimit/calls.ts): renewed in band, as one of the
// stream's requests, once it has expired, so a paced stream never stops for it. This is why it is
// not the conformance run's TokenSession, which sleeps through a token's edge instead.
// Real emulator on 127.0.0.1 port 0 with 1 s tokens, on a virtual clock it shares with the client
// (the stream's 3.5 s pass in milliseconds); bounded in requests and time.

import { afterAll, beforeAll, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { Exchange } from '../../src/http/exchange.js';
import { Redactor } from '../../src/http/redact.js';
import { ServiceClient } from '../../src/http/service-client.js';
import { probeCalls } from '../../src/ratelimit/calls.js';
import { virtualClock } from '../../src/time/clock.js';
import { BUSINESS } from './support.js';

/** Three token lifetimes and a bit: at least two renewals fall inside. */
const STREAM_MS = 3_500;
const PACE_MS = 25;
const MAX_CALLS = Math.ceil(STREAM_MS / PACE_MS) + 10;

const clock = virtualClock();
let emu: Emulator;
beforeAll(async () => {
  emu = await createEmulator({ port: 0, tokenTtlS: 1, rateLimit: { rps: 1_000, burst: 1_000 }, now: clock.now });
});
afterAll(() => emu.close());

it("renews an expired token in band: the renewal is one of the stream's answers, and the stream goes on with the new token", async () => {
  const http = new ServiceClient(
    { environment: 'sandbox', baseUrl: emu.url, credentials: emu.credentials, caPem: emu.caPem },
    { redactor: new Redactor(), connections: 4, clock },
  );
  try {
    const calls = await probeCalls({ http, endpoint: 'tokens.validate', business: BUSINESS });
    const answers: Exchange[] = [];
    const started = clock.now();
    while (clock.now() - started < STREAM_MS && answers.length < MAX_CALLS) {
      answers.push(await calls.primary());
      await clock.sleep(PACE_MS);
    }
    const kinds = answers.map((a) => `${a.request} ${a.status}`);
    const renewals = answers.flatMap((a, i) => (a.request === 'POST /tokens' ? [i] : []));
    // Each renewal took a slot of the stream (no separate, uncounted fetch), and got a token.
    expect(renewals.length, kinds.join(', ')).toBeGreaterThanOrEqual(2);
    for (const i of renewals) expect(answers[i]!.status, kinds.join(', ')).toBe(200);
    // After each renewal the calls go on at once, validated with the new token (valid ~950 ms more).
    for (const i of renewals.filter((r) => r + 1 < answers.length)) {
      expect(answers[i + 1]!.request, kinds.join(', ')).not.toBe('POST /tokens');
      expect(answers[i + 1]!.status, kinds.join(', ')).toBe(200);
    }
    const validated = answers.filter((a) => a.request !== 'POST /tokens' && a.status === 200).length;
    expect(validated, kinds.join(', ')).toBeGreaterThan(answers.length / 2);
  } finally {
    await http.close();
  }
});

it("counts the CLI's preflight among its set-up requests when it went just before them, not one sent long before", async () => {
  const http = new ServiceClient(
    { environment: 'sandbox', baseUrl: emu.url, credentials: emu.credentials, caPem: emu.caPem },
    { redactor: new Redactor(), connections: 4, clock },
  );
  try {
    const now = clock.now();
    const calls = await probeCalls({
      http,
      endpoint: 'tokens.validate',
      business: BUSINESS,
      sentBefore: [now - 100, now - 5_000],
    });
    // The token, validate's method, and the preflight 0.1 s before; `run`'s, 5 s before, is not set-up.
    expect(calls.overhead.sent).toBe(3);
  } finally {
    await http.close();
  }
});
