// The estimators on hand-made series: a token bucket, nginx's leaky bucket and a fixed window,
// sampled at a paced rate with jitter and a stalled sender, as the probe would record them.

import { describe, expect, it } from 'vitest';
import { burstOf, recoveryOf, saturatedPoints, fitSustainedRate } from '../../src/ratelimit/estimators.js';
import type { Sample } from '../../src/ratelimit/types.js';
import { seeded } from './seeded.js';
import { answered } from '../helpers/answered.js';

type Limiter = (tMs: number) => boolean;

const tokenBucket = (rps: number, burst: number, full = false): Limiter => {
  let tokens = full ? burst : 0;
  let last = 0;
  return (t) => {
    tokens = Math.min(burst, tokens + ((t - last) / 1000) * rps);
    last = t;
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  };
};

/** nginx limit_req with nodelay, in its own integer milli-request arithmetic. */
const leakyBucket = (rps: number, burst: number): Limiter => {
  let excess = burst * 1000;
  let last = 0;
  return (t) => {
    const ms = Math.floor(t) - last;
    const e = Math.max(0, excess - Math.floor((rps * 1000 * ms) / 1000) + 1000);
    if (e > burst * 1000) return false;
    excess = e;
    if (ms) last = Math.floor(t);
    return true;
  };
};

const fixedWindow = (perWindow: number, windowMs: number): Limiter => {
  let used = perWindow;
  let current = -1;
  return (t) => {
    const w = Math.floor(t / windowMs);
    if (w !== current) {
      current = w;
      used = 0;
    }
    if (used < perWindow) {
      used++;
      return true;
    }
    return false;
  };
};

interface Series {
  rate: number;
  seconds: number;
  jitterMs?: number;
  /** [start, length] of sender stalls, ms. */
  stalls?: Array<[number, number]>;
  seed?: number;
  start?: number;
}

function sample(limiter: Limiter, s: Series): Sample[] {
  const random = seeded(s.seed ?? 1);
  const out: Sample[] = [];
  const interval = 1000 / s.rate;
  let t = s.start ?? 0;
  while (t < (s.start ?? 0) + s.seconds * 1000) {
    const stall = s.stalls?.find(([from, length]) => t >= from && t < from + length);
    if (stall) t = stall[0] + stall[1];
    // The request reaches the limiter a little after it was recorded as sent.
    const arrival = t + random() * (s.jitterMs ?? 0);
    const ok = limiter(arrival);
    out.push({
      sentMs: t,
      doneMs: t + 2,
      status: ok ? 200 : 429,
      answer: ok ? 'accepted' : 'limited',
      phase: 'window',
      client: 'primary',
    });
    t += interval;
  }
  return out;
}

describe('fitSustainedRate', () => {
  it.each([
    ['token bucket 50/s, offered 62.5/s', tokenBucket(50, 50), 50, 62.5],
    ['token bucket 10/s, offered 12.5/s', tokenBucket(10, 5), 10, 12.5],
    ['nginx leaky bucket 25 r/s burst 10, offered 31/s', leakyBucket(25, 10), 25, 31],
    ['nginx leaky bucket 10 r/s burst 5, offered 20/s', leakyBucket(10, 5), 10, 20],
  ])('%s: within 1 %', (_label, limiter, rps, offered) => {
    const fit = fitSustainedRate(sample(limiter, { rate: offered, seconds: 6, jitterMs: 2 }));
    expect(fit).not.toBeNull();
    expect(Math.abs(fit!.rps - rps) / rps).toBeLessThan(0.01);
    expect(fit!.clumpy).toBe(false);
  });

  it('never claims more precision than one sending interval over the span of its points', () => {
    // No jitter: every pair of points may agree exactly, yet each point can be a whole interval late.
    const fit = fitSustainedRate(sample(tokenBucket(2, 2), { rate: 2.5, seconds: 20 }));
    expect(fit).not.toBeNull();
    const interval = 1000 / 2.5;
    expect(fit!.precision).toBeGreaterThanOrEqual(interval / (fit!.spanS * 1000) - 1e-9);
    expect(Math.abs(fit!.rps - 2) / 2).toBeLessThanOrEqual(fit!.precision);
  });

  it('is not bent by a stalled sender (the limiter refills meanwhile)', () => {
    const series = sample(tokenBucket(50, 50), {
      rate: 62.5,
      seconds: 3,
      jitterMs: 2,
      stalls: [
        [800, 250],
        [2_000, 150],
      ],
    });
    const fit = fitSustainedRate(series);
    expect(Math.abs(fit!.rps - 50) / 50).toBeLessThan(0.02);
  });

  it('is not bent by stalls longer than a small limit can hold (nginx burst=1 loses what it frees meanwhile)', () => {
    const stalls: Array<[number, number]> = [
      [300, 120],
      [900, 150],
      [1_500, 90],
      [2_200, 200],
      [2_900, 110],
    ];
    const series = sample(leakyBucket(40, 1), { rate: 50, seconds: 3.5, jitterMs: 1, stalls });
    const accepted = series.filter((s) => s.answer === 'accepted').length;
    // Counting acceptances over the time would find well under 40/s: the stalls cost capacity.
    expect(accepted / 3.5).toBeLessThan(38);
    expect(Math.abs(fitSustainedRate(series)!.rps - 40) / 40).toBeLessThan(0.02);
  });

  it('finds limit / window for a fixed window, from its first acceptance after each reset', () => {
    const fit = fitSustainedRate(sample(fixedWindow(20, 1_000), { rate: 40, seconds: 8 }));
    expect(Math.abs(fit!.rps - 20) / 20).toBeLessThan(0.05);
  });

  it('falls back to the span of acceptances when no refusal marks a saturated limiter', () => {
    // A full bucket never refuses 9 requests at 6/s: all the series can say is the rate that passed.
    const fit = fitSustainedRate(sample(tokenBucket(5, 5, true), { rate: 6, seconds: 1.5 }));
    expect(fit?.rps).toBeCloseTo(6, 5);
    expect(fit?.clumpy).toBe(false);
    expect(fitSustainedRate([])).toBeNull();
  });

  it('gives no precision to the pace of a series the limit stopped refusing early', () => {
    // Refused once at its start, then 41 req/s for 10 s that a bucket of 50/s never refused: the
    // figure is the sender's pace, a floor of the rate, not the rate to one request in 400.
    const series = [
      answered(0, 1, false, 'window'),
      ...Array.from({ length: 410 }, (_, i) => answered(10 + i * (1000 / 41), 11 + i * (1000 / 41), true, 'window')),
    ];
    const fit = fitSustainedRate(series)!;
    expect(fit.rps).toBeCloseTo(41, 0);
    expect(fit.precision).toBe(1);
    // Refused all along, the same span read at its pace says what it can.
    const refusedAllAlong = series.map((s, i) =>
      i % 40 === 0 ? { ...s, status: 429, answer: 'limited' as const } : s,
    );
    expect(fitSustainedRate(refusedAllAlong)!.precision).toBeLessThan(0.01);
  });
});

describe('saturatedPoints', () => {
  it('keeps acceptances right after a refusal and numbers every acceptance', () => {
    const mk = (t: number, ok: boolean): Sample => ({
      sentMs: t,
      doneMs: t,
      status: ok ? 200 : 429,
      answer: ok ? 'accepted' : 'limited',
      phase: 'window',
      client: 'primary',
    });
    const series = [
      mk(0, true),
      mk(10, false),
      mk(20, true),
      mk(30, true),
      mk(40, false),
      mk(50, true),
      mk(60, false),
      mk(500, true),
    ];
    // The last one follows a 440 ms silence: the limiter may have refilled, so it is no evidence.
    expect(saturatedPoints(series)).toEqual([
      { k: 2, t: 20 },
      { k: 4, t: 50 },
    ]);
  });
});

describe('burstOf', () => {
  it('takes away what refilled while the burst was sent', () => {
    const run = sample(tokenBucket(50, 50, true), { rate: 200, seconds: 0.6 });
    const fit = burstOf(run, 50);
    expect(fit.limited).toBe(true);
    expect(fit.raw).toBeGreaterThan(60);
    expect(Math.abs(fit.capacity - 50)).toBeLessThanOrEqual(1);
  });

  it('does not count a stall before the first request left as refill', () => {
    // The sender stalls 100 ms right after recording the first request as sent: it reaches the
    // limiter (and the next one leaves) only afterwards.
    const limiter = tokenBucket(25, 11, true);
    expect(limiter(100)).toBe(true);
    const first: Sample = {
      sentMs: 0,
      doneMs: 101,
      status: 200,
      answer: 'accepted',
      phase: 'idle-burst',
      client: 'primary',
    };
    const run = [first, ...sample(limiter, { rate: 200, seconds: 0.3, start: 100 })];
    const accepted = run.filter((s) => s.answer === 'accepted');
    // Taking the recorded time at face value would count 2.5 refilled requests too many.
    const naive = accepted.length - (25 * accepted[accepted.length - 1]!.sentMs) / 1000;
    expect(naive).toBeLessThan(9.5);
    expect(Math.abs(burstOf(run, 25).capacity - 11)).toBeLessThanOrEqual(1);
  });

  it('is not moved by a stall in the middle of the burst (the refill goes on meanwhile)', () => {
    // Requests every 5 ms; the one recorded at 30 ms reaches the limiter at 130 ms, and the next
    // leaves at 135 ms.
    const limiter = tokenBucket(25, 8, true);
    const run: Sample[] = [];
    const at = (sentMs: number, arrival: number) => {
      run.push(answered(sentMs, arrival + 1, limiter(arrival), 'idle-burst'));
    };
    for (let t = 0; t <= 25; t += 5) at(t, t);
    at(30, 130);
    for (let t = 135; t <= 300; t += 5) at(t, t);
    expect(run.some((x) => x.answer === 'limited')).toBe(true);
    expect(Math.abs(burstOf(run, 25).capacity - 8)).toBeLessThanOrEqual(1);
  });

  it('counts from where the bucket was last full when the sender fell below its rate meanwhile', () => {
    // 10 of a bucket of 20 sent at 200 req/s, then a pause of two seconds that fills it again (the
    // refill past full is lost), then on at 200 req/s until refused. Counted from the first request,
    // the lost refill was taken away too: it read 10.
    const limiter = tokenBucket(10, 20, true);
    const run: Sample[] = [];
    for (let t = 0; t < 50; t += 5) run.push(answered(t, t + 1, limiter(t), 'drain'));
    for (let t = 2_000; t <= 2_200; t += 5) run.push(answered(t, t + 1, limiter(t), 'drain'));
    expect(run.some((x) => x.answer === 'limited')).toBe(true);
    const fit = burstOf(run, 10);
    expect(fit.raw).toBeGreaterThan(30);
    expect(Math.abs(fit.capacity - 20)).toBeLessThanOrEqual(1);
  });

  it('says when nothing was refused', () => {
    const fit = burstOf(sample(tokenBucket(50, 500, true), { rate: 100, seconds: 0.5 }), 50);
    expect(fit.limited).toBe(false);
    expect(fit.raw).toBe(50);
  });
});

describe('recoveryOf', () => {
  it('is the longest wait from a refusal to the next acceptance: about 1/rate on a bucket', () => {
    const recovery = recoveryOf(sample(tokenBucket(10, 5), { rate: 40, seconds: 3 }));
    expect(recovery).toBeGreaterThanOrEqual(0.075);
    expect(recovery).toBeLessThanOrEqual(0.1 + 1 / 40);
  });

  it('is null when nothing was refused', () => {
    expect(recoveryOf(sample(tokenBucket(10, 100, true), { rate: 5, seconds: 1 }))).toBeNull();
  });
});
