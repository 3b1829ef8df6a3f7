// The connection pool to one target: which CAs it trusts and how long a connect may take. Kept
// apart from the client because building trust is costly and subtle (see below), and the
// rate-limit probe and the checks share one pool per target.

import { Agent } from 'undici';
import type { Target } from '../config/target.js';
import { clientContext } from './secure-contexts.js';

export const DEFAULT_TIMEOUT_MS = 10_000;

export function dispatcherFor(target: Pick<Target, 'caPem'>, connections = 16): Agent {
  return new Agent({
    connections,
    keepAliveTimeout: 10_000,
    connect: {
      // One context for every connection of the pool, and the same one the preflight and the
      // certificate check use for this CA: given as `ca`, tls.connect would parse the ~150 roots
      // again for every new connection (about 30-60 ms of blocked event loop each), which stalls
      // every other request in the process and skews anything timed, such as the rate-limit probe.
      secureContext: clientContext({ caPem: target.caPem }),
      rejectUnauthorized: true,
      timeout: DEFAULT_TIMEOUT_MS,
    },
  });
}
