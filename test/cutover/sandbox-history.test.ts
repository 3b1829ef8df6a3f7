// Which stored run stands in for a sandbox pass: the newest of sandbox's base URL, within the age.

import { describe, expect, it } from 'vitest';
import { HISTORY_SCHEMA, type HistoryRecord } from '../../src/history/record.js';
import { recentSandboxPass } from '../../src/cutover/sandbox-history.js';

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
