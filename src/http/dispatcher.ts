// The connection pool to one target: which CAs it trusts and how long a connect may take. Kept
// apart from the client because building trust is costly and subtle (see below), and the
// rate-limit probe and the checks share one pool per target.

import { Agent } from 'undici';
import { createSecureContext, rootCertificates } from 'node:tls';
import type { Target } from '../config/target.js';

export const DEFAULT_TIMEOUT_MS = 10_000;

export function dispatcherFor(target: Pick<Target, 'caPem'>, connections = 16): Agent {
  // Passing `ca` replaces Node's bundled roots, so keep them and add the user's CA. Built once:
  // given as `ca`, tls.connect would parse the ~150 roots again for every new connection (about
  // 60 ms of blocked event loop each), which stalls every other request in the process and skews
  // anything timed, such as the rate-limit probe.
  const secureContext = target.caPem ? createSecureContext({ ca: [...rootCertificates, target.caPem] }) : undefined;
  return new Agent({
    connections,
    keepAliveTimeout: 10_000,
    connect: {
      ...(secureContext ? { secureContext } : {}),
      rejectUnauthorized: true,
      timeout: DEFAULT_TIMEOUT_MS,
    },
  });
}
