// Runs cases of the TLS matrix against the target, each beside its calibration, all at once.

import { calibrate, calibrationBound, type Calibration } from './calibration.js';
import { offerOf, type HandshakeCase } from './cases.js';
import type { TlsEndpoint } from './endpoint.js';
import { handshake, type HandshakeResult } from './handshake.js';

/** A remote handshake answers in well under a second; this only bounds a silent server. */
export const PROBE_TIMEOUT_MS = 5_000;

export interface CaseResult {
  case: HandshakeCase;
  result: HandshakeResult;
  /**
   * Whether this machine can make the offer at all, asked only when the target did not accept it:
   * an acceptance is proof by itself (see verdict.ts), so a calibration could not change what it
   * means. Absent for an accepted case.
   */
  calibration?: Calibration;
}

export interface RunCasesOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export async function runCases(
  endpoint: TlsEndpoint,
  cases: readonly HandshakeCase[],
  opts: RunCasesOptions = {},
): Promise<CaseResult[]> {
  const results = await Promise.all(
    cases.map((c) =>
      handshake({
        host: endpoint.host,
        port: endpoint.port,
        ...(endpoint.servername !== undefined ? { servername: endpoint.servername } : {}),
        ...offerOf(c),
        readCertificate: false,
        timeoutMs: opts.timeoutMs ?? PROBE_TIMEOUT_MS,
        ...(opts.signal ? { signal: opts.signal } : {}),
      }),
    ),
  );
  // Bounded by how long this machine just took, not by a fixed time: the slowest of these
  // handshakes, a steadier measure of its pace than any one of them (under load 15 on 2 cores, a
  // case's own refusal was up to 10 times quicker than its calibration, the slowest never 4 times).
  const bound = calibrationBound(Math.max(...results.map((r) => r.durationMs)), endpoint.requestTimeoutMs);
  return Promise.all(
    cases.map(async (c, i) => {
      const result = results[i]!;
      // A conformant target accepts three of the eight cases: three calibrations (a loopback
      // server and a handshake with both ends in this process, each) a run need not pay for.
      if (result.ok) return { case: c, result };
      return { case: c, result, calibration: await calibrate(c, { bound }) };
    }),
  );
}

/**
 * One handshake as an ordinary client makes it: Node's default versions and suites, SNI, the
 * target's CA added to the bundled roots. For the certificate checks.
 */
export function defaultHandshake(
  endpoint: TlsEndpoint,
  opts: RunCasesOptions & { verify?: boolean } = {},
): Promise<HandshakeResult> {
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
