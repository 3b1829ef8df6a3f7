// Which stored run stands in for a sandbox pass, and which for sandbox's recommended rate: the
// newest of sandbox's base URL, within the age.

import { describe, expect, it } from 'vitest';
import { HISTORY_SCHEMA, type HistoryRecord } from '../../src/history/record.js';
import { recentSandboxPass, recentSandboxRecommendation } from '../../src/cutover/sandbox-history.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');
const record = (
  hoursAgo: number,
  baseUrl = 'https://sandbox.example.test',
  checks: HistoryRecord['checks'] = { 'token.issue': { status: 'pass', facts: { token_format: 'opaque' } } },
): HistoryRecord => ({
  schema: HISTORY_SCHEMA,
  started_at: new Date(NOW - hoursAgo * 3_600_000).toISOString(),
  tool_version: '0',
  target: { environment: 'sandbox', base_url: baseUrl },
  verdict: 'pass',
  checks,
});

describe('recentSandboxPass', () => {
  it.each([
    { what: 'the newest within the age', records: [record(30), record(5), record(2)], found: record(2).started_at },
    { what: 'exactly at the age', records: [record(24)], found: record(24).started_at },
    { what: 'none younger than the age', records: [record(24.1)], found: undefined },
    { what: 'another base URL', records: [record(1, 'https://api.example.test')], found: undefined },
    { what: 'a ratelimit-only run (no checks)', records: [record(1, undefined, {})], found: undefined },
    { what: 'a record from the future (a clock set wrong)', records: [record(-1)], found: undefined },
  ])('$what', ({ records, found }) => {
    expect(recentSandboxPass(records, 'https://sandbox.example.test', 24, NOW)?.started_at).toBe(found);
  });

  it('keeps each check status and facts', () => {
    expect(recentSandboxPass([record(1)], 'https://sandbox.example.test', 24, NOW)?.checks).toEqual([
      { id: 'token.issue', status: 'pass', facts: { token_format: 'opaque' } },
    ]);
  });
});

describe('recentSandboxRecommendation', () => {
  const rated = (hoursAgo: number, targetRps: number, baseUrl?: string): HistoryRecord => ({
    ...record(hoursAgo, baseUrl, {}),
    rate_limit: { sustained_rps: targetRps / 0.8, target_rps: targetRps },
  });
  it.each([
    { what: 'the newest ratelimit run within the age', records: [rated(30, 10), rated(5, 20), rated(2, 39)], want: 39 },
    { what: 'a check-only run is passed over', records: [rated(3, 39), record(1)], want: 39 },
    {
      what: 'a run that recommended nothing (no target_rps)',
      records: [{ ...record(1, undefined, {}), rate_limit: { sustained_rps: 50 } }],
      want: undefined,
    },
    {
      what: 'the newest run recommended below a rate k6 rounds held (target_held_rps), not an older measured one',
      records: [
        rated(3, 39),
        { ...record(1, undefined, {}), rate_limit: { sustained_held_rps: 30, target_held_rps: 27 } },
      ],
      want: 27,
    },
    { what: 'none younger than the age', records: [rated(24.1, 39)], want: undefined },
    { what: 'another base URL', records: [rated(1, 39, 'https://api.example.test')], want: undefined },
  ])('$what', ({ records, want }) => {
    expect(recentSandboxRecommendation(records, 'https://sandbox.example.test', 24, NOW)?.target_rps).toBe(want);
  });
});
