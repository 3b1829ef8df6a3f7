// The check's burst on virtual time: a CheckContext whose validate answers come from a status
// function at virtual instants, with a busy machine's late timers or starved event loop on demand.
// Shared by the burst's own tests and the history's test of what the burst records.

import { evidenceOf } from '../../src/http/evidence.js';
import type { Exchange } from '../../src/http/exchange.js';
import { Redactor } from '../../src/http/redact.js';
import type { CheckContext } from '../../src/runner/check.js';
import { virtualClock } from '../../src/time/clock.js';
import { VIRTUAL_WAKE_UPS_PER_PASS } from '../ratelimit/virtual-limit.js';

const EPOCH_MS = 1_800_000_000_000;

export interface World {
  ctx: CheckContext;
  stop: () => void;
}

/**
 * A context on virtual time (virtualClock: it jumps to the next timer or answer once every
 * microtask has settled).
 * `stallAtMs`: the first sleep from then on oversleeps by `stallMs` (a busy machine's late timer).
 * `busyMsPerRequest`: sending a request costs the client that much time before it leaves, the
 * clock moving on meanwhile (a CPU-starved client: its event loop and TLS share a core with other
 * work), so it cannot send faster than one per that many ms whatever it aims at.
 * `status(i, ms)`: what the i-th validate answers at virtual time ms; answers take `latencyMs`.
 * `everyMs`: the service answers one request every that many ms at most, each waiting its turn
 * (a pacer, one worker): a line that grows while more are sent.
 * `earlierAtMs`: the run's earlier requests (the checks before the burst, same credentials), as the
 * virtual instants they were answered at, each passed through `status` (index -1); the check then
 * starts `gapMs` after the last of them.
 */
export function world(opts: {
  maxRps: number;
  maxRequests: number;
  latencyMs: number;
  stallAtMs?: number;
  stallMs?: number;
  busyMsPerRequest?: number;
  status: (i: number, ms: number) => number;
  everyMs?: number;
  earlierAtMs?: readonly number[];
  gapMs?: number;
}): World {
  // Nothing real runs beside it: many wake-ups a pass of the event loop (virtual-limit.ts).
  const clock = virtualClock(0, VIRTUAL_WAKE_UPS_PER_PASS);
  const now = clock.now;
  let lastEnded: number | undefined;
  for (const ms of opts.earlierAtMs ?? []) {
    clock.advance(ms - now());
    opts.status(-1, now());
    lastEnded = EPOCH_MS + now();
  }
  if (opts.earlierAtMs?.length) clock.advance(opts.gapMs ?? 0);
  let stopped = false;
  const at = (when: number, fire: () => void) => void clock.sleep(when - now()).then(() => stopped || fire());
  let stalled = false;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      let late = 0;
      if (opts.stallAtMs !== undefined && !stalled && now() >= opts.stallAtMs)
        [stalled, late] = [true, opts.stallMs ?? 0];
      at(now() + ms + late, resolve);
    });
  let calls = 0;
  let lineFreeMs = -Infinity;
  const validate = (): Promise<Exchange> =>
    new Promise((resolve) => {
      const i = calls++;
      if (opts.busyMsPerRequest) clock.advance(opts.busyMsPerRequest);
      const sentAt = EPOCH_MS + now();
      const doneMs = Math.max(now() + opts.latencyMs, lineFreeMs + (opts.everyMs ?? -Infinity));
      if (opts.everyMs !== undefined) lineFreeMs = doneMs;
      at(doneMs, () => {
        const status = opts.status(i, now());
        lastEnded = EPOCH_MS + now();
        resolve({
          request: 'GET /tokens/validate',
          status,
          headers: {},
          text: '',
          json: undefined,
          truncated: false,
          durationMs: EPOCH_MS + now() - sentAt,
          sentAt,
          receivedAt: EPOCH_MS + now(),
          rateLimitWaits: 0,
          echoesSecret: false,
        });
      });
    });
  const ctx = {
    target: { environment: 'sandbox' },
    rateLimit: {
      endpoint: 'tokens.validate',
      maxRps: opts.maxRps,
      maxRequests: opts.maxRequests,
      recoveryWaitS: 15,
      probingAllowed: true,
    },
    http: {
      healthCheck: async () => undefined,
      lastRequestEndedAt: () => lastEnded,
      validate,
      evidence: (ex: Exchange, note?: string) => evidenceOf(new Redactor(), ex, note),
    },
    session: { current: async () => ({ token: 'virtual-token' }), validateMethod: async () => 'GET' },
    business: {},
    now: () => EPOCH_MS + now(),
    sleep,
    progress: () => {},
    signal: new AbortController().signal,
  } as unknown as CheckContext;
  return { ctx, stop: () => void (stopped = true) };
}
