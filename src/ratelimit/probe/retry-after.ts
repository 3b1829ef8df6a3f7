// Phase 5: Retry-After (or, without it, a RateLimit reset): wait exactly what it said, then retry
// once: truthful or not. The refusal that ended the last burst is the one judged: fresh, and
// nothing else is sent while waiting.

import { beyondWaitBudget } from '../../http/retry-after.js';
import { round } from '../estimators.js';
import type { RateLimitHeaders, RetryAfterVerdict, Sample } from '../types.js';
import type { Announced, Probe } from './probe.js';

export interface RetryAfterFindings {
  verdict: RetryAfterVerdict;
  /** Whether a RateLimit reset held, when it was tested (only without Retry-After). */
  reset?: RateLimitHeaders['reset'];
  notes: string[];
}

export async function retryAfterPhase(probe: Probe, recovery: number | null): Promise<RetryAfterFindings> {
  const { lastRetryAfter, lastReset, retryAfterMax, last } = probe.refusals;
  const notes: string[] = [];
  let verdict: RetryAfterVerdict = retryAfterMax === null ? (last ? 'absent' : 'unknown') : 'unknown';
  let reset: RateLimitHeaders['reset'];
  const beyond = lastRetryAfter && beyondWaitBudget(lastRetryAfter.seconds, probe.maxRetryAfterS);
  if (beyond) notes.push(`not tested: ${beyond}`);
  else if (lastRetryAfter && !probe.outOfBudget()) {
    const retry = await waitAndRetry(probe, 'Retry-After', lastRetryAfter, notes);
    const seconds = lastRetryAfter.seconds;
    if (retry?.answer === 'accepted') {
      verdict = 'truthful';
      if (recovery !== null && seconds > recovery + 1)
        notes.push(
          `Retry-After (${seconds} s) is truthful but generous: a request passed ${round(recovery, 2)} s after a refusal`,
        );
    } else if (retry?.answer === 'limited') {
      verdict = 'untruthful';
      notes.push(
        `Retry-After said ${seconds} s; after waiting exactly that, the retry was refused again (${retry.status})`,
      );
    }
  } else if (lastReset && probe.refusals.headers && !probe.outOfBudget()) {
    const retry = await waitAndRetry(probe, 'the RateLimit reset', lastReset, notes);
    if (retry?.answer === 'accepted' || retry?.answer === 'limited') {
      reset = retry.answer === 'accepted' ? 'truthful' : 'untruthful';
      notes.push(
        // Read after the retry: its own refusal may have added header names.
        `no Retry-After, but RateLimit headers (${probe.refusals.headers.names.join(', ')}) announce a reset in ${lastReset.seconds} s: ` +
          (retry.answer === 'accepted'
            ? 'after waiting that, the retry passed'
            : `after waiting that, the retry was refused again (${retry.status})`),
      );
    }
  }
  const headers = probe.refusals.headers;
  if (headers && !reset) notes.push(`RateLimit headers on refusals: ${headers.names.join(', ')}`);
  return { verdict, ...(reset ? { reset } : {}), notes };
}

/** Waits what `said` announced after its answer, then retries once; undefined when it could not. */
async function waitAndRetry(
  probe: Probe,
  header: string,
  said: Announced,
  notes: string[],
): Promise<Sample | undefined> {
  const { exchange, seconds } = said;
  // The announcement counts from when its answer arrived, on the clock the exchange carries (the probe's).
  const waitMs = exchange.receivedAt + seconds * 1000 - probe.clock.now();
  if (waitMs < 0) notes.push(`${header} (${seconds} s) had already passed when the probe could test it; not judged`);
  else if (probe.elapsed() + waitMs > probe.maxDurationMs)
    notes.push(`${header} (${seconds} s) is longer than the probe's time left; not judged`);
  else {
    probe.progress(`waiting ${round(seconds, 2)} s as ${header} says, then retrying once`);
    await probe.clock.sleep(waitMs, probe.signal);
    if (!probe.signal?.aborted) return probe.send('retry-after');
  }
  return undefined;
}
