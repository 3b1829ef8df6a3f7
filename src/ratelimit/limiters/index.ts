// One limiter for one client, from a model. Everything that enforces or replays a limit goes through here.

import { BatchBucketLimiter } from './batch-bucket.js';
import { BucketLimiter } from './bucket.js';
import { FixedWindowLimiter } from './fixed-window.js';
import { InterpolatedWindowLimiter } from './interpolated-window.js';
import {
  burstOf,
  limitsOf,
  singleLimit,
  type Limiter,
  type LimiterModel,
  type LimiterSet,
  type Limits,
} from './model.js';
import { QueueLimiter } from './queue.js';
import { SlidingCounterLimiter } from './sliding-counter.js';
import { SlidingWindowLimiter } from './sliding-window.js';
import { StackedLimiter } from './stacked.js';

export * from './model.js';

/** A limiter for one limit, or for a set of them (a set of one is that limit alone, exactly). */
export function createLimiter(limits: Limits): Limiter {
  const single = singleLimit(limits);
  return single !== null ? createOne(single) : new StackedLimiter(limitsOf(limits), createOne);
}

function createOne(model: LimiterModel): Limiter {
  switch (model.kind) {
    case 'bucket':
      return model.fill_interval_s === undefined
        ? new BucketLimiter(model)
        : new BatchBucketLimiter({ ...model, fill_interval_s: model.fill_interval_s });
    case 'fixed-window':
      return new FixedWindowLimiter(model);
    case 'sliding-window':
      return model.counter === 'interpolated' ? new InterpolatedWindowLimiter(model) : new SlidingWindowLimiter(model);
    case 'sliding-counter':
      return new SlidingCounterLimiter(model);
    case 'queue':
      return new QueueLimiter(model);
  }
}

/** How many requests pass back to back from idle: one limit's burst, or a set's by replaying it. */
export function burstSize(limits: Limits): number {
  const single = singleLimit(limits);
  return single !== null ? burstOf(single) : setBurst(limitsOf(limits));
}

/**
 * A set's burst, by replaying it: requests back to back at one instant from idle until the first
 * refusal. Not the smallest limit's burst taken on trust: a limit counting what another refused, a
 * bucket's capacity raised to 1 or a counter's rounding each change it, and only the replay knows.
 */
function setBurst(set: LimiterSet): number {
  const limiter = createLimiter(set);
  // Bounded: no set passes more than its smallest limit's burst (a request more for rounding).
  const most = Math.min(...set.map((m) => Math.max(1, Math.ceil(burstOf(m))))) + 1;
  let passed = 0;
  while (passed < most && limiter.take(0).ok) passed += 1;
  return passed;
}
