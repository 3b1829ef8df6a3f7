// One limiter for one client, from a model. Everything that enforces or replays a limit goes through here.

import { BatchBucketLimiter } from './batch-bucket.js';
import { BucketLimiter } from './bucket.js';
import { FixedWindowLimiter } from './fixed-window.js';
import { InterpolatedWindowLimiter } from './interpolated-window.js';
import type { Limiter, LimiterModel } from './model.js';
import { QueueLimiter } from './queue.js';
import { SlidingCounterLimiter } from './sliding-counter.js';
import { SlidingWindowLimiter } from './sliding-window.js';

export * from './model.js';

export function createLimiter(model: LimiterModel): Limiter {
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
