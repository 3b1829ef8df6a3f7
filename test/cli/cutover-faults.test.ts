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

// One list, so that a conformant row starts as soon as a lane frees once every fault row has started
// (vitest starts a file's concurrent rows in the order given, `maxConcurrency` at a time): as a
// describe block of their own they began only when the slowest fault row had ended
// (rate-limit-never-lifts, ~72 s), and then took the file's last ~44 s alone.
describe('cutover over each production fault and each conformant profile group, opt-ins given: NOT READY naming the failing must check, or READY', () => {
  // The conformant rows last, two at a time: each probes sandbox's rate limit (and one production's),
  // which the other runs' timers in this process share. Begun together beside the table's start they
  // took 83-107 s each instead of 16-22; by the time they start, the fault rows left are the long
  // ones that mostly wait (an expiry, production's 60 s recovery budget).
  const probeTurn = turns(2);
  it.concurrent.for([...longestFirst(FAULT_ROWS, true), ...PROFILE_ROWS].map((r) => [r.name, r] as const))(
    '%s',
    { timeout: 300_000 },
    async ([, row], { expect }) => {
      if (row.check === undefined) {
        const { res, report } = await probeTurn(() => cutoverRow(dir, started, row, true));
        expect(report.cutover.breaking, JSON.stringify(report.environments['production']?.checks)).toEqual([]);
        expect(report.cutover.not_tested).toEqual([]);
        expect(report.cutover.verdict).toBe('READY');
        expect(res.code, res.stdout + res.stderr).toBe(0);
        return;
      }
      const { res, report, seen } = await cutoverRow(dir, started, row, true);
      expect(report.cutover.verdict, res.stdout + res.stderr).toBe('NOT READY');
      expect(res.code).toBe(1);
      expect(breakingIds(report)).toContain(`production:${row.check}`);
      const line = report.cutover.breaking.find(
        (l) => /^production (fails|could not complete) /.test(l) && l.includes(` ${row.check} (§`),
      );
      expect(line, report.cutover.breaking.join('\n')).toMatch(/\(§[\d., ]+, must\): \S/);
      expect(res.stdout).toMatch(/^NOT READY: /m);
      expect(readFileSync(join(dir, `r-${row.name}-opted-in`, 'junit.xml'), 'utf8')).toMatch(
        new RegExp(`name="production:${row.check.replace(/\./g, '\\.')}">\\s*<failure`),
      );
      // Only the endpoint production allowed, and sandbox is conformant: nothing of its own to say.
      expect(seen.productionAccepted.every((p) => p === '/v1/evaluation')).toBe(true);
      // env.credentials-isolated judges the pair: on sandbox's pass it reads production's refusal too.
      expect(report.cutover.sandbox_deviations.filter((l) => !l.includes(' env.credentials-isolated '))).toEqual([]);
    },
  );
});
