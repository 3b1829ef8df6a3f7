// Issue 34's table, opt-ins given: `cutover` over every emulator fault a client built against a
// conformant sandbox could trip over, the fault on production only: NOT READY, naming production's
// failing must check (the one that catches the fault in `check`'s own matrix). Over each conformant
// profile group on production: READY. Production has its opt-ins (an allowed business endpoint, and
// --allow-production-load where the fault lives behind the rate limit). The same table without
// them is test/cli/cutover-faults-read-only.test.ts; the rows are test/helpers/cutover-table.ts.
// The emulator, not the harness, counts what arrived.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import type { CutoverReport } from '../../src/cutover/report-model.js';
import { cutoverRow, FAULT_ROWS, longestFirst, PROFILE_ROWS } from '../helpers/cutover-table.js';
import { turns } from '../helpers/turns.js';

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'ces-cutover-faults-'))));
const started: Emulator[] = [];
afterAll(async () => Promise.all(started.map((e) => e.close())));

const breakingIds = (r: CutoverReport) => r.cutover.findings.filter((f) => f.status === 'breaking').map((f) => f.id);

describe('cutover over each production fault, opt-ins given: NOT READY, naming the failing must check', () => {
  it.concurrent.for(longestFirst(FAULT_ROWS, true).map((r) => [r.name, r] as const))(
    '%s',
    { timeout: 300_000 },
    async ([, row], { expect }) => {
      const { res, report, seen } = await cutoverRow(dir, started, row, true);
      expect(report.cutover.verdict, res.stdout + res.stderr).toBe('NOT READY');
      expect(res.code).toBe(1);
      expect(breakingIds(report)).toContain(`production:${row.check!}`);
      const line = report.cutover.breaking.find(
        (l) => /^production (fails|could not complete) /.test(l) && l.includes(` ${row.check!} (§`),
      );
      expect(line, report.cutover.breaking.join('\n')).toMatch(/\(§[\d., ]+, must\): \S/);
      expect(res.stdout).toMatch(/^NOT READY: /m);
      expect(readFileSync(join(dir, `r-${row.name}-opted-in`, 'junit.xml'), 'utf8')).toMatch(
        new RegExp(`name="production:${row.check!.replace(/\./g, '\\.')}">\\s*<failure`),
      );
      // Only the endpoint production allowed, and sandbox is conformant: nothing of its own to say.
      expect(seen.productionAccepted.every((p) => p === '/v1/evaluation')).toBe(true);
      // env.credentials-isolated judges the pair: on sandbox's pass it reads production's refusal too.
      expect(report.cutover.sandbox_deviations.filter((l) => !l.includes(' env.credentials-isolated '))).toEqual([]);
    },
  );
});

describe('cutover over each conformant profile group on production, opt-ins given: READY', () => {
  // After the fault rows, two at a time: each probes sandbox's rate limit (and one production's),
  // which the other runs' timers in this process share. One at a time they were the file's last
  // ~80 s, alone on the machine once the read-only half had ended.
  const probeTurn = turns(2);
  it.concurrent.for(PROFILE_ROWS.map((r) => [r.name, r] as const))(
    '%s',
    { timeout: 300_000 },
    async ([, row], { expect }) => {
      const { res, report } = await probeTurn(() => cutoverRow(dir, started, row, true));
      expect(report.cutover.breaking, JSON.stringify(report.environments['production']?.checks)).toEqual([]);
      expect(report.cutover.not_tested).toEqual([]);
      expect(report.cutover.verdict).toBe('READY');
      expect(res.code, res.stdout + res.stderr).toBe(0);
    },
  );
});
