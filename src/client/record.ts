// What one client run left behind, as plain data the client checks judge: every request as the
// emulator saw it (credentials as fingerprints, bodies as shapes), every ClientHello, and how the
// process ended. Times are ms since the client was started.

import type { OfferedTls } from './client-hello.js';

export interface BearerSeen {
  /** The scheme word of the Authorization header, '' when there was none. */
  scheme: string;
  /** tk_ fingerprint of the token sent, when there was one. */
  token?: string;
  /** When the emulator handed that token out and when it expires (ms since start); absent for one it never issued. */
  fetchedMs?: number;
  expiresMs?: number;
}

export interface RecordedRequest {
  atMs: number;
  answeredMs: number;
  method: string;
  path: string;
  /** Names of the query parameters, never their values. */
  queryNames: string[];
  contentType: string;
  bodyShape: string;
  /** Header names the client sent, with Authorization as "Bearer tk_…" and any credential hidden. */
  headers: Record<string, string>;
  status: number;
  retryAfter?: string;
  bearer: BearerSeen;
  /** Where the client secret stood besides the POST /tokens body: "the URL path", "header x-api-key", … */
  secretIn: string[];
  /** For a POST /tokens that got a token: its fingerprint and expiry (ms since start). */
  issued?: { token: string; expiresMs: number };
}

export type StopReason = 'time-limit' | 'flood' | 'secret-printed' | 'interrupted';

export interface ProcessOutcome {
  exitCode: number | null;
  signal: string | null;
  /** Set when the harness ended the client rather than the client itself. */
  stopped: StopReason | null;
  /** When the harness stopped it (ms since start), null when it ended by itself. */
  stoppedMs: number | null;
  durationMs: number;
}

export interface ClientRunRecord {
  scenario: string;
  /** Where this scenario's emulator listened (port 0 gives each its own port). */
  baseUrl?: string;
  requests: RecordedRequest[];
  hellos: OfferedTls[];
  process: ProcessOutcome;
  /** The client wrote its secret to stdout or stderr. */
  secretPrinted: boolean;
  /**
   * The harness' limits, so checks can say what they were; `stallAfterMs`: going this long without
   * a request, the client has stalled (see stall.ts).
   */
  limits: { timeLimitS: number; maxRequests: number; stallAfterMs: number };
}
