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
    const judged = await judgePerLimit(probe, lastRetryAfter, notes);
    if (judged) {
      verdict = judged.verdict;
      const seconds = judged.said.seconds;
      if (verdict === 'truthful' && judged.said === lastRetryAfter && recovery !== null && seconds > recovery + 1)
        notes.push(
          `Retry-After (${seconds} s) is truthful but generous: a request passed ${round(recovery, 2)} s after a refusal`,
        );
    }
  } else if (lastReset && probe.refusals.headers && !probe.outOfBudget()) {
    const retry = await waitAndRetry(probe, 'the RateLimit reset', lastReset, notes);
    const next = probe.refusals.lastReset;
    if (retry?.answer === 'limited' && next && anotherLimit(lastReset, next)) {
      // Refused by a limit that resets later: evidence of it, not of a reset that lied.
      notes.push(
        `evidence of another limit: after waiting the ${lastReset.seconds} s reset the RateLimit headers announced, the retry was refused (${retry.status}) with a reset in ${next.seconds} s, ` +
          `a limit on a longer window than the one that refused first; the first reset is not judged by it`,
      );
    } else if (retry?.answer === 'accepted' || retry?.answer === 'limited') {
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

/**
 * How many limits a Retry-After is followed through: a request refused after waiting one limit's
 * Retry-After by a limit asking for a longer wait is that other limit's answer (N per second and M
 * per minute, a gateway in front of an application), judged in turn against its own Retry-After.
 */
const MAX_LIMITS_FOLLOWED = 3;
/** A Retry-After this much longer than the one waited out is another limit's, not the same one lying again. */
const OTHER_LIMIT_FACTOR = 1.5;

/**
 * Waits `first`'s Retry-After and retries; a retry refused with a clearly longer Retry-After came
 * from another limit (evidence of it, noted), whose own Retry-After is then waited and judged. A
 * limit's header is untruthful only when a retry after its own wait is refused with no longer one.
 * Undefined when no retry could be judged.
 */
async function judgePerLimit(
  probe: Probe,
  first: Announced,
  notes: string[],
): Promise<{ verdict: RetryAfterVerdict; said: Announced } | undefined> {
  let said = first;
  let refreshed = false;
  for (let limits = 1; limits <= MAX_LIMITS_FOLLOWED; limits++) {
    const retry = await waitAndRetry(probe, 'Retry-After', said, notes);
    if (retry?.answer === 'accepted') return { verdict: 'truthful', said };
    if (retry?.answer !== 'limited') return limits === 1 ? undefined : { verdict: 'unknown', said };
    const next = probe.refusals.lastRetryAfter;
    const refilled = admittedSince(probe, said);
    if ((next === undefined || !anotherLimit(said, next)) && refilled > 0) {
      // The header promised room for a client that stopped; this one did not: its own requests
      // after the refusal (an edge walk's pings, a later clump) took the room the retry was told of.
      notes.push(
        `Retry-After said ${said.seconds} s; the retry after exactly that was refused (${retry.status}), but ${refilled} of the probe's own requests had been let through after that refusal, so the limit it met was the probe's doing, not the header's`,
      );
      const fresh: Announced | undefined = refreshed ? undefined : await freshRefusal(probe);
      if (fresh === undefined) return { verdict: 'unknown', said };
      notes.push(`judged again on a fresh refusal, nothing sent while waiting`);
      [said, refreshed] = [fresh, true];
      limits--;
      continue;
    }
    if (next === undefined || !anotherLimit(said, next)) {
      notes.push(
        `Retry-After said ${said.seconds} s; after waiting exactly that, the retry was refused again (${retry.status})` +
          (next && next !== said ? `, with Retry-After ${next.seconds} s` : ''),
      );
      return { verdict: 'untruthful', said };
    }
    notes.push(
      `evidence of another limit: after waiting the ${said.seconds} s Retry-After said, the retry was refused (${retry.status}) with Retry-After ${next.seconds} s, ` +
        `a limit on a longer window than the one that refused first; its Retry-After is judged on its own, not as the first one's`,
    );
    if (beyondWaitBudget(next.seconds, probe.maxRetryAfterS)) {
      notes.push(`not tested: ${beyondWaitBudget(next.seconds, probe.maxRetryAfterS)}`);
      return { verdict: 'unknown', said: next };
    }
    said = next;
  }
  return { verdict: 'unknown', said };
}

/**
 * How many of the probe's own requests, sent after `said`'s refusal had arrived and before the
 * retry, were let through: a Retry-After is a promise to a client that waits, so a retry refused
 * after those judges the probe, not the header.
 */
function admittedSince(probe: Probe, said: Announced): number {
  const arrivedMs = said.exchange.receivedAt - (probe.clock.now() - probe.elapsed());
  return probe.samples.filter((s) => s.sentMs >= arrivedMs && s.answer === 'accepted' && s.phase !== 'retry-after')
    .length;
}

/** At most this many requests to meet a fresh refusal: the limit was just refusing, so it is usually the first. */
const FRESH_CAP = 200;

/** A refusal with a Retry-After met now, by sending until one comes: undefined when none came. */
async function freshRefusal(probe: Probe): Promise<Announced | undefined> {
  const before = probe.refusals.lastRetryAfter;
  const run = await probe.burstRun('retry-after', FRESH_CAP);
  const after = probe.refusals.lastRetryAfter;
  return run.samples.at(-1)?.answer === 'limited' && after !== undefined && after !== before ? after : undefined;
}

/** Whether `next`, announced on a refusal after waiting out `said`, is another limit's: a clearly longer wait. */
const anotherLimit = (said: Announced, next: Announced): boolean =>
  next !== said && next.seconds >= said.seconds * OTHER_LIMIT_FACTOR && next.seconds - said.seconds >= 1;

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
