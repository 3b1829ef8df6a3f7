// Sandbox's side of a cutover taken from the run history instead of a fresh pass: the last `check`
// or `run` stored for sandbox's base URL, when recent enough. The history keeps each check's status
// and facts (never a message), which is all the comparison reads.

import type { HistoryRecord } from '../history/record.js';
import type { CheckFacts } from './facts.js';

export interface StoredPass {
  started_at: string;
  checks: CheckFacts[];
}

/**
 * The newest record of `baseUrl` at most `maxAgeH` hours old that ran the checks; undefined when
 * there is none (the caller then runs a fresh pass and says so).
 */
export function recentSandboxPass(
  records: readonly HistoryRecord[],
  baseUrl: string,
  maxAgeH: number,
  nowMs: number,
): StoredPass | undefined {
  const newest = newestRecent(records, baseUrl, maxAgeH, nowMs, (r) => Object.keys(r.checks).length > 0);
  if (!newest) return undefined;
  return {
    started_at: newest.started_at,
    checks: Object.entries(newest.checks).map(([id, c]) => ({
      id,
      status: c.status,
      ...(c.facts ? { facts: c.facts } : {}),
    })),
  };
}

/**
 * The client rate the newest `ratelimit` (or `run`) of `baseUrl` at most `maxAgeH` hours old
 * recommended; undefined when none stored one (then sandbox is probed in this run).
 */
export function recentSandboxRecommendation(
  records: readonly HistoryRecord[],
  baseUrl: string,
  maxAgeH: number,
  nowMs: number,
): { started_at: string; target_rps: number } | undefined {
  const newest = newestRecent(records, baseUrl, maxAgeH, nowMs, (r) => recommendedOf(r) !== undefined);
  if (!newest) return undefined;
  return { started_at: newest.started_at, target_rps: recommendedOf(newest)! };
}

/** The rate a record's run recommended, measured or below a rate k6 rounds held (history/record.ts). */
function recommendedOf(r: HistoryRecord): number | undefined {
  const rate = r.rate_limit?.['target_rps'] ?? r.rate_limit?.['target_held_rps'];
  return typeof rate === 'number' ? rate : undefined;
}

function newestRecent(
  records: readonly HistoryRecord[],
  baseUrl: string,
  maxAgeH: number,
  nowMs: number,
  wanted: (r: HistoryRecord) => boolean,
): HistoryRecord | undefined {
  return records
    .filter((r) => r.target.base_url === baseUrl && wanted(r))
    .filter((r) => {
      const age = nowMs - Date.parse(r.started_at);
      return age >= 0 && age <= maxAgeH * 3_600_000;
    })
    .sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at))[0];
}
