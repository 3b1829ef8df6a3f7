// A service that does one thing at a time: a single-threaded app server (one gunicorn sync worker,
// a Flask or Express process without a cluster), or one whose process shares its core. Requests
// wait in line for it, refused ones too, and its rate limiter meets them as the worker takes them,
// not as they were sent: a client that sends faster than 125 a second builds a queue, and the
// latency it sees grows with it. Nothing it decides changes; §6 asks for no capacity.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'single-worker',
  description:
    'one request at a time, 8 ms each (at most 125 a second): requests wait in line, refused ones too, as behind a single-threaded app server',
  transport: { workMs: 8 },
});
