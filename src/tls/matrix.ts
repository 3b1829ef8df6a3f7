// Runs cases of the TLS matrix against the target, each beside its calibration, all at once.

import { calibrate, type Calibration } from './calibration.js';
import { offerOf, type ProbeCase } from './cases.js';
import type { TlsEndpoint } from './endpoint.js';
import { handshake, type HandshakeResult } from './probe.js';

/** A remote handshake answers in well under a second; this only bounds a silent server. */
export const PROBE_TIMEOUT_MS = 5_000;

export interface CaseResult {
  case: ProbeCase;
  result: HandshakeResult;
  calibration: Calibration;
}

export interface RunCasesOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export function runCases(endpoint: TlsEndpoint, cases: readonly ProbeCase[], opts: RunCasesOptions = {}): Promise<CaseResult[]> {
  return Promise.all(
    cases.map(async (c) => {
      const [result, calibration] = await Promise.all([
        handshake({
          host: endpoint.host,
          port: endpoint.port,
          ...(endpoint.servername !== undefined ? { servername: endpoint.servername } : {}),
          ...offerOf(c),
          timeoutMs: opts.timeoutMs ?? PROBE_TIMEOUT_MS,
          ...(opts.signal ? { signal: opts.signal } : {}),
        }),
        calibrate(c),
      ]);
      return { case: c, result, calibration };
    }),
  );
}

/**
 * One handshake as an ordinary client makes it: Node's default versions and suites, SNI, the
 * target's CA added to the bundled roots. For the certificate checks.
 */
export function defaultHandshake(endpoint: TlsEndpoint, opts: RunCasesOptions & { verify?: boolean } = {}): Promise<HandshakeResult> {
  return handshake({
    host: endpoint.host,
    port: endpoint.port,
    ...(endpoint.servername !== undefined ? { servername: endpoint.servername } : {}),
    ...(endpoint.caPem !== undefined ? { caPem: endpoint.caPem } : {}),
    verify: opts.verify ?? false,
    timeoutMs: opts.timeoutMs ?? PROBE_TIMEOUT_MS,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
}
