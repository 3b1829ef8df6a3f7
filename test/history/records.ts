// Builders for history records: a run of the steady service, and the same with one thing moved.

import { HISTORY_SCHEMA, type HistoryRecord } from '../../src/history/record.js';

export function steadyRecord(
  i: number,
  overrides: {
    latency?: number;
    accepted?: number;
    /** The rate the check's burst reached (the count is compared only between like rates). */
    offered?: number;
    /** The quiet the burst waited for first; null: a run of a harness from before it waited. */
    quiet?: number | null;
    issuer?: string;
    typeStatus?: 'pass' | 'fail';
    base_url?: string;
  } = {},
): HistoryRecord {
  return {
    schema: HISTORY_SCHEMA,
    started_at: new Date(Date.UTC(2026, 10, 1, i)).toISOString().replace('.000', ''),
    tool_version: '0.1.0',
    target: { environment: 'sandbox', base_url: overrides.base_url ?? 'https://sandbox.example' },
    verdict: overrides.typeStatus === 'fail' ? 'fail' : 'pass',
    checks: {
      'token.type-bearer': { status: overrides.typeStatus ?? 'pass', facts: { token_type: '"Bearer"' } },
      'business.valid-token-accepted': { status: 'pass', facts: { latency_ms: overrides.latency ?? 40 + (i % 3) } },
      'ratelimit.limit-enforced': {
        status: 'pass',
        facts: {
          accepted_before_limit: overrides.accepted ?? 60 + (i % 2),
          offered_rps: overrides.offered ?? 198 + (i % 3),
          ...(overrides.quiet === null ? {} : { quiet_before_s: overrides.quiet ?? 1 }),
        },
      },
      'tls.certificate-valid': { status: 'pass', facts: { issuer: overrides.issuer ?? 'CN=Sandbox CA (sha256 aa)' } },
      'token.ledger': { status: i % 2 ? 'skip' : 'pass' },
    },
  };
}

export const steadyRuns = (n: number): HistoryRecord[] => Array.from({ length: n }, (_, i) => steadyRecord(i));
