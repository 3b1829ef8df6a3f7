// The `client` section of a report (`ces-harness client`): what command ran, and per scenario how
// it ended and what it sent. The judgements themselves are ordinary CheckResults in `checks`.

/** One request of the client, as the emulator saw it: no secret, tokens as tk_ fingerprints, bodies as shapes. */
export interface ClientExchange {
  t_ms: number;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  /** "Bearer tk_…", another scheme, or absent. */
  authorization?: string;
  /** Every header the client sent, credentials hidden ([redacted]) or fingerprinted. */
  headers: Record<string, string>;
  body: string;
  retry_after?: string;
}

export interface ClientRun {
  scenario: string;
  description: string;
  exit_code: number | null;
  signal: string | null;
  /** Why the harness ended the client (time-limit, flood, secret-printed, interrupted), null when it ended by itself. */
  stopped: string | null;
  /** Stopped at the time limit: still working then (true), or stalled (false); null when not stopped there. */
  still_working: boolean | null;
  /** Stopped at the time limit: how long it had gone without a request by then, ms; null when not stopped there. */
  quiet_ms: number | null;
  /** Going this long without a request counts as a stall in this run, ms. */
  stall_after_ms: number;
  duration_ms: number;
  requests: number;
  token_fetches: number;
  business_calls: number;
  connections: number;
  /** Union over the run's ClientHellos. */
  tls_offered: { versions: string[]; suites: string[] };
  /** The first requests of the run, at most CLIENT_EXCHANGES_SHOWN. */
  exchanges: ClientExchange[];
}

export interface ClientSection {
  /** The command as given, credentials redacted. */
  command: string;
  time_limit_s: number;
  runs: ClientRun[];
}

export const CLIENT_EXCHANGES_SHOWN = 60;
