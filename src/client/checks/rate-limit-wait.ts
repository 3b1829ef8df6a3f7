// §7: on 429, wait and retry. With Retry-After, no request before it has passed; without it, waits
// of the client's choosing that grow while the 429s go on, and never a burst of quick retries.

import type { RecordedRequest } from '../record.js';
import { at, evidenceOf, judged, type ClientCheck } from './types.js';

/** Timers fire a little early or late; a wait this much short of Retry-After still counts as waiting. */
const TIMER_SLACK_MS = 30;
/**
 * A retry storm: more than this many requests after 429s within one second. Exponential backoff
 * with full jitter from a 10 ms base sends at most 10 in its first second (7 on average); a client
 * retrying in a loop or every 50 ms sends 20 or more.
 */
export const STORM_PER_SECOND = 10;
/**
 * Waits that do not grow: a run of at least FIXED_RUN waits after 429s in a row, all but
 * STRETCHED of them within a factor FIXED_SPREAD of the shortest. A fixed wait, stretched by a
 * busy machine, mostly stays within 1.3×;
 * jittered backoff (full, equal or decorrelated) spreads wider, and over eight waits in a row
 * decorrelated jitter stays that narrow in well under 1 run in 10,000 (simulated). Single short
 * waits are not judged: full jitter draws them by design.
 */
const FIXED_RUN = 8;
const FIXED_SPREAD = 1.5;

interface Wait {
  limited: RecordedRequest;
  next: RecordedRequest;
  gapMs: number;
}

/** Each 429 with the next request the client sent after that answer. */
function waitsAfter429(requests: readonly RecordedRequest[]): Wait[] {
  const sorted = [...requests].sort((a, b) => a.atMs - b.atMs);
  return sorted.flatMap((limited) => {
    if (limited.status !== 429) return [];
    const next = sorted.find((r) => r.atMs >= limited.answeredMs && r !== limited);
    return next ? [{ limited, next, gapMs: next.atMs - limited.answeredMs }] : [];
  });
}

/** Waits that follow each other without a success in between: one backoff sequence. */
function runs(waits: readonly Wait[]): Wait[][] {
  const out: Wait[][] = [];
  for (const w of waits) {
    const last = out.at(-1)?.at(-1);
    if (last && last.next === w.limited) out.at(-1)!.push(w);
    else out.push([w]);
  }
  return out;
}

/** The most requests after 429s (without Retry-After) that fall within one second of each other. */
function busiestSecond(waits: readonly Wait[]): Wait[] {
  const times = [...waits].sort((x, y) => x.next.atMs - y.next.atMs);
  let best: Wait[] = [];
  for (let i = 0, j = 0; j < times.length; j++) {
    while (times[j]!.next.atMs - times[i]!.next.atMs >= 1_000) i++;
    if (j - i + 1 > best.length) best = times.slice(i, j + 1);
  }
  return best;
}

/**
 * Waits a busy machine may stretch in one run of a fixed wait. Load only ever lengthens a wait (a
 * late timer, a late request), so a fixed wait keeps its floor: one or two waits stretched past
 * FIXED_SPREAD in a run of fifteen must not hide the rest. Decorrelated jitter, simulated over runs
 * of 8 to 20 waits, still looks fixed in under 1 run in 100,000 with two allowed, as with none.
 */
const STRETCHED = 2;

const fixed = (run: readonly Wait[]): boolean => {
  const gaps = run.map((w) => Math.max(1, w.gapMs));
  const floor = Math.min(...gaps);
  const atFloor = gaps.filter((g) => g < FIXED_SPREAD * floor).length;
  return atFloor >= FIXED_RUN && atFloor >= run.length - STRETCHED;
};

export const check: ClientCheck = {
  id: 'client.rate-limit-wait',
  title: 'After a 429 the client waits (Retry-After, or growing waits) instead of hammering',
  spec: '7',
  level: 'must',
  description: `no request before Retry-After has passed; without it, no more than ${STORM_PER_SECOND} retries in any second and, over ${FIXED_RUN}+ 429s in a row, waits that grow or vary (not all but ${STRETCHED} within ${FIXED_SPREAD}× of the shortest) (run with \`rate-limit-storm\`, \`rate-limit-no-retry-after\`)`,
  judge(record) {
    const limited = record.requests.filter((r) => r.status === 429);
    if (limited.length === 0)
      return judged('skip', 'the client got no 429 to react to (the rate-limit scenarios send some)');
    const waits = waitsAfter429(record.requests);
    const early = waits.filter(
      (w) => w.limited.retryAfter !== undefined && w.gapMs < Number(w.limited.retryAfter) * 1000 - TIMER_SLACK_MS,
    );
    if (early.length > 0) {
      const w = early[0]!;
      return judged(
        'fail',
        `${early.length} of ${waits.length} requests after a 429 came before its Retry-After: ${w.next.method} ${w.next.path} ${w.gapMs} ms after a 429 that said Retry-After: ${w.limited.retryAfter ?? ''}; §7: wait, then retry`,
        early.map((x) =>
          evidenceOf(
            x.next,
            `${x.gapMs} ms after the 429 at ${at(x.limited.atMs)} (Retry-After: ${x.limited.retryAfter ?? ''})`,
          ),
        ),
      );
    }
    const blind = waits.filter((w) => w.limited.retryAfter === undefined);
    const storm = busiestSecond(blind);
    if (storm.length > STORM_PER_SECOND) {
      return judged(
        'fail',
        `${storm.length} retries within one second after 429s without Retry-After: a retry storm; back off with growing waits instead`,
        storm.map((w) => evidenceOf(w.next, `${w.gapMs} ms after the 429 at ${at(w.limited.atMs)}`)),
      );
    }
    const flat = runs(blind).find(fixed);
    if (flat) {
      const gaps = flat.map((w) => `${w.gapMs} ms`).join(', ');
      return judged(
        'fail',
        `after ${flat.length} 429s in a row without Retry-After the waits did not grow (${gaps}: at most ${STRETCHED} of them more than ${FIXED_SPREAD}× the shortest); back off with growing waits`,
        flat.map((w) => evidenceOf(w.next, `${w.gapMs} ms after a 429`)),
      );
    }
    const gaps = waits.map((w) => `${w.gapMs} ms`).join(', ');
    return judged(
      'pass',
      `${limited.length} 429(s); the client waited ${gaps} before the next request`,
      waits.map((w) =>
        evidenceOf(
          w.next,
          `${w.gapMs} ms after the 429${w.limited.retryAfter ? ` (Retry-After: ${w.limited.retryAfter})` : ''}`,
        ),
      ),
    );
  },
};
