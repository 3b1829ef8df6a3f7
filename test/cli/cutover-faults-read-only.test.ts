// Issue 34's table without production's opt-ins (no business endpoint allowed there, no
// --allow-production-load): over every production fault and conformant profile group, never READY
// on a fault, and not one authenticated business call let into production. The rows are
// test/helpers/cutover-table.ts; the table with the opt-ins is test/cli/cutover-faults.test.ts.
// The emulator, not the harness, counts what arrived.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Emulator } from '../../src/emulator/index.js';
import { cutoverRow, FAULT_ROWS, longestFirst, PROFILE_ROWS } from '../helpers/cutover-table.js';

let dir: string;
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), 'ces-cutover-read-only-'))));
const started: Emulator[] = [];
afterAll(async () => Promise.all(started.map((e) => e.close())));

describe('the same table without opt-ins: never READY on a fault, no authenticated business call to production', () => {
  it.concurrent.for(longestFirst([...FAULT_ROWS, ...PROFILE_ROWS], false).map((r) => [r.name, r] as const))(
    '%s',
    { timeout: 300_000 },
    async ([, row], { expect }) => {
      const { report, seen } = await cutoverRow(dir, started, row, false);
      expect(seen.productionAccepted).toEqual([]);
      expect(report.production!.requests.filter((q) => q.path.startsWith('/v1/') && q.auth === 'valid')).toEqual([]);
      if (row.check !== undefined) expect(report.cutover.verdict).not.toBe('READY');
    },
  );
});
