// An emulator pair for `cutover` tests (sandbox and production on port 0), and what reached each:
// the emulator, not the harness, counts the requests and the business calls production let in.

import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';

export interface Pair {
  emulator: Emulator;
  /** Business calls production let in with a token it issued, while that token was live by its expires_at. */
  productionAccepted: string[];
  /** Requests that reached each environment, `METHOD /path`. */
  sandboxRequests: string[];
  productionRequests: string[];
}

export async function cutoverPair(
  options: Omit<EmulatorOptions, 'port' | 'environments' | 'observe'> = {},
): Promise<Pair> {
  // Each token issued, with its expires_at in ms: an expired token a faulty production still takes
  // is the harness probing that fault (a call the spec says must be refused), not an authenticated call.
  const issued = new Map<string, number>();
  const productionAccepted: string[] = [];
  const sandboxRequests: string[] = [];
  const productionRequests: string[] = [];
  let productionPort = '';
  const emulator = await createEmulator({
    port: 0,
    environments: ['sandbox', 'production'],
    tokenTtlS: 86_400,
    ...options,
    observe: ({ req, reply }) => {
      if (req.path === '/tokens' && reply.status === 200) {
        const { token, expires_at: at } = JSON.parse(reply.body) as { token?: unknown; expires_at?: unknown };
        const atMs = Number(at) > 1e11 ? Number(at) : Number(at) * 1000;
        if (typeof token === 'string') issued.set(token, Number.isFinite(atMs) ? atMs : Infinity);
      }
      const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      const toProduction = String(req.headers.host ?? '').endsWith(`:${productionPort}`);
      (toProduction ? productionRequests : sandboxRequests).push(`${req.method} ${req.path}`);
      if (
        toProduction &&
        req.path.startsWith('/v1/') &&
        bearer !== undefined &&
        Date.now() < (issued.get(bearer) ?? 0) &&
        reply.status !== 401 &&
        reply.status !== 403
      )
        productionAccepted.push(req.path);
    },
  });
  productionPort = new URL(emulator.environments[1]!.url).port;
  return { emulator, productionAccepted, sandboxRequests, productionRequests };
}
