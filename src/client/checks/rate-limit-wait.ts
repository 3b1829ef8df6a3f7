// §7: on 429, wait and retry. With Retry-After, no request before it has passed; without it, waits
// of the client's choosing that grow while the 429s go on, and never a burst of quick retries.

import type { RecordedRequest } from '../record.js';
import { at, evidenceOf, judged, type ClientCheck } from './types.js';

/** Timers fire a little early or late; a wait this much short of Retry-After still counts as waiting. */
const TIMER_SLACK_MS = 30;
/** A retry sooner than this after a 429 without Retry-After is hammering, whatever comes later. */
export const MIN_RETRY_GAP_MS = 100;
/**
 * Growing waits: after at least GROWTH_RUN 429s in a row, the later half of the waits (their
 * median) is at least GROWTH times the earlier half. Exponential backoff (×2 per retry) gives 3×
 * or more; a fixed wait gives 1×, and medians keep one wait stretched by a busy machine from
 * passing for growth.
 */
const GROWTH_RUN = 3;
const GROWTH = 2;

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

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** The later half of the waits (the middle one counts as later) against the earlier half. */
function grows(gaps: readonly number[]): boolean {
  const half = Math.floor(gaps.length / 2);
  return median(gaps.slice(half)) >= GROWTH * median(gaps.slice(0, half));
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

export const check: ClientCheck = {
  id: 'client.rate-limit-wait',
  title: 'After a 429 the client waits (Retry-After, or growing waits) instead of hammering',
  spec: '7',
  level: 'must',
  description: `no request before Retry-After has passed; without it, no retry within ${MIN_RETRY_GAP_MS} ms and, after ${GROWTH_RUN}+ 429s in a row, later waits ≥ ${GROWTH}× the earlier ones (run with \`rate-limit-storm\`, \`rate-limit-no-retry-after\`)`,
  judge(record) {
    const limited = record.requests.filter((r) => r.status === 429);
    if (limited.length === 0) return judged('skip', 'the client got no 429 to react to (the rate-limit scenarios send some)');
    const waits = waitsAfter429(record.requests);
    const early = waits.filter((w) => w.limited.retryAfter !== undefined && w.gapMs < Number(w.limited.retryAfter) * 1000 - TIMER_SLACK_MS);
    if (early.length > 0) {
      const w = early[0]!;
      return judged(
        'fail',
        `${early.length} of ${waits.length} requests after a 429 came before its Retry-After: ${w.next.method} ${w.next.path} ${w.gapMs} ms after a 429 that said Retry-After: ${w.limited.retryAfter ?? ''}; §7: wait, then retry`,
        early.map((x) => evidenceOf(x.next, `${x.gapMs} ms after the 429 at ${at(x.limited.atMs)} (Retry-After: ${x.limited.retryAfter ?? ''})`)),
      );
    }
    const blind = waits.filter((w) => w.limited.retryAfter === undefined);
    const quick = blind.filter((w) => w.gapMs < MIN_RETRY_GAP_MS);
    if (quick.length > 0) {
      return judged(
        'fail',
        `${quick.length} retries came within ${MIN_RETRY_GAP_MS} ms of a 429 without Retry-After (the quickest after ${Math.min(...quick.map((w) => w.gapMs))} ms): a retry storm; back off instead`,
        quick.map((w) => evidenceOf(w.next, `${w.gapMs} ms after the 429 at ${at(w.limited.atMs)}`)),
      );
    }
    const flat = runs(blind).find((run) => run.length >= GROWTH_RUN && !grows(run.map((w) => w.gapMs)));
    if (flat) {
      const gaps = flat.map((w) => `${w.gapMs} ms`).join(', ');
      return judged('fail', `after ${flat.length} 429s in a row without Retry-After the waits did not grow (${gaps}; the later half should be at least ${GROWTH}× the earlier); back off with growing waits`, flat.map((w) => evidenceOf(w.next, `${w.gapMs} ms after a 429`)));
    }
    const gaps = waits.map((w) => `${w.gapMs} ms`).join(', ');
    return judged('pass', `${limited.length} 429(s); the client waited ${gaps} before the next request`, waits.map((w) => evidenceOf(w.next, `${w.gapMs} ms after the 429${w.limited.retryAfter ? ` (Retry-After: ${w.limited.retryAfter})` : ''}`)));
  },
};
