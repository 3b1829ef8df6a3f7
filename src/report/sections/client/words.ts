// Wording of the client section shared by report.md, report.html and junit.xml: how a run ended
// and its figures, so the three formats say the same thing the same way.

import type { ClientRun } from './model.js';

export function endedText(run: ClientRun): string {
  const took = `${(run.duration_ms / 1000).toFixed(1)} s`;
  const quiet = `${((run.quiet_ms ?? 0) / 1000).toFixed(1)} s`;
  if (run.stopped === 'time-limit' && run.still_working === true)
    return `stopped at the time limit after ${took} while still working (last request ${quiet} before)`;
  if (run.stopped === 'time-limit' && run.still_working === false)
    return `stopped at the time limit after ${took}, stalled (no request in its last ${quiet})`;
  if (run.stopped !== null) return `stopped (${run.stopped}) after ${took}`;
  if (run.signal !== null) return `killed by ${run.signal} after ${took}`;
  return `exit ${String(run.exit_code)} after ${took}`;
}

export const tlsText = (run: ClientRun): string =>
  run.tls_offered.versions.length === 0
    ? 'no TLS ClientHello'
    : `${run.tls_offered.versions.join(', ')}; ${run.tls_offered.suites.length} suites`;

/** Column heads and one row of cells per run, as plain text (each format escapes them). */
export const CLIENT_RUN_COLUMNS = [
  'Scenario',
  'Ended',
  'Requests',
  'Token fetches',
  'Business calls',
  'Connections',
  'TLS offered',
] as const;

export const clientRunCells = (run: ClientRun): string[] => [
  run.scenario,
  endedText(run),
  String(run.requests),
  String(run.token_fetches),
  String(run.business_calls),
  String(run.connections),
  tlsText(run),
];

export const exchangeText = (e: ClientRun['exchanges'][number]): string =>
  `+${(e.t_ms / 1000).toFixed(2)} s ${e.method} ${e.path} → ${e.status} (${e.duration_ms} ms)${e.authorization ? ` · ${e.authorization}` : ''} · body ${e.body}${e.retry_after ? ` · Retry-After: ${e.retry_after}` : ''}`;
