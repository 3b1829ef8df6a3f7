// A drain is judged to have fallen between two edges of a fixed window (probe/batch-bucket.ts) by
// when its requests can have reached the limiter, not by when they were sent. On CI (land33,
// test/integration/ratelimit-network.test.ts) the emulator's fixed window of 50 per 1 s behind
// toxiproxy's 50 ± 10 ms each way was read as "a bucket refilled by a timer, 50 tokens every 1 s
// up to 64": the drain's requests were all sent before an edge, but those on connections opened for
// them reached the limiter a handshake later (~210 ms round trips where open ones took ~100), some
// past the edge, into the next window. Here that drain is laid out as such a run's samples: without
// the arrivals, the 64 would be a bucket's capacity; with them, the drain straddles the edge and a
// clump just after a later edge, sent to the fixed window itself, finds the window's 50.

import { describe, expect, it } from 'vitest';
import type { FixedWindowModel } from '../../src/ratelimit/limiters/index.js';
import { batchBucketPhase } from '../../src/ratelimit/probe/batch-bucket.js';
import { Probe } from '../../src/ratelimit/probe/probe.js';
import type { DrainFigures } from '../../src/ratelimit/probe/recover.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { clockWindow } from './support.js';
import { fromModel, virtualWorld } from './virtual-limit.js';

const WINDOW = clockWindow(50, 1, 0) as FixedWindowModel;
const OPEN_TRIP_MS = 100;
const FRESH_TRIP_MS = 210;

/** The drain: 62 let through, sent 5 ms apart from 2.62 s (the window's edges on whole seconds), then one refused. */
function drainAcrossAnEdge(): { samples: Sample[]; drain: DrainFigures } {
  const sample = (i: number, answer: Sample['answer']): Sample => {
    const sentMs = 2_620 + 5 * i;
    // The first two on the set-up's open connection, the rest each on one opened for it.
    const tripMs = i < 2 ? OPEN_TRIP_MS : FRESH_TRIP_MS;
    return {
      sentMs,
      doneMs: sentMs + tripMs,
      status: answer === 'accepted' ? 200 : 429,
      answer,
      phase: 'drain',
      client: 'primary',
    };
  };
  const passed = Array.from({ length: 62 }, (_, i) => sample(i, 'accepted'));
  const refusal = sample(62, 'limited');
  const drain: DrainFigures = {
    accepted: 62,
    firstMs: passed[0]!.sentMs,
    lastMs: passed.at(-1)!.sentMs,
    refusal,
    limit: 64,
  };
  return { samples: [...passed, refusal], drain };
}

describe('a drain sent between two edges of a fixed window but reaching it across one', () => {
  it('is not a bucket refilled by a timer: a clump after a later edge finds the window whole', async () => {
    const world = virtualWorld({ limiter: () => fromModel(WINDOW), status: 429 });
    const { samples, drain } = drainAcrossAnEdge();
    const laidOut = samples.length;
    // The edges are on whole seconds of the probe's clock: the virtual clock starts at 0.
    const probe = new Probe({
      calls: world.calls,
      clock: world.clock,
      maxRps: 200,
      maxRequests: 1_000,
      maxDurationMs: 60_000,
      maxInFlight: 64,
      maxRetryAfterS: 120,
      signal: undefined,
      progress: () => {},
      samples,
    });
    try {
      const found = await batchBucketPhase(probe, WINDOW, drain);
      const context = JSON.stringify(found);
      expect(found?.model ?? null, context).toBeNull();
      expect(found?.neither, context).toBeUndefined();
      // It looked again: a clump was sent, and the window let its 50 through.
      expect(probe.samples.length, context).toBeGreaterThan(laidOut);
    } finally {
      world.stop();
    }
  });
});
