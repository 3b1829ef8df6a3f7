// Issue 34's table, shared by its two halves (test/cli/cutover-faults.test.ts, opt-ins given, and
// test/cli/cutover-faults-read-only.test.ts, without them): the rows, the order to start them in, and
// one `cutover` run of a row against an emulator pair whose production alone has the row's faults
// and profiles. Two files so that the real tier runs them in two workers at once: a row mostly waits
// (1.9 s of CPU each), and vitest runs five concurrent rows of a file at a time.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FAULTS, type Emulator, type FaultName, type ProfileName } from '../../src/emulator/index.js';
import { PROFILE_GROUPS } from '../../src/emulator/profiles/groups.js';
import type { CutoverReport } from '../../src/cutover/report-model.js';
import { cutoverPair, pairConfig, type Pair } from './cutover-pair.js';
import { CAUGHT_BY } from './fault-catchers.js';
import { runCliInProcess, type CliResult } from './cli.js';

// Left out, with why: `rate-limit-off` cannot be told from a limit above the probe's ceiling (check
// says "not tested" of it, never fail); `shared-credentials` changes both environments at once
// (test/cli/cutover.test.ts holds its row).
const NOT_A_PRODUCTION_ROW: ReadonlySet<FaultName> = new Set(['rate-limit-off', 'shared-credentials']);
/** Faults only a rate-limit burst shows: production's opt-in for it is --allow-production-load. */
const BEHIND_THE_LIMIT: ReadonlySet<string> = new Set([
  'ratelimit.limit-enforced',
  'ratelimit.recovers',
  'ratelimit.error-body',
]);
/** Faults seen only at a rollover in a pass on a real target (its first token may be another client's). */
const AT_A_ROLLOVER: ReadonlySet<FaultName> = new Set(['wrong-lifetime']);
/** A lifetime the checks can wait out (expect.expiry_wait_s) where the fault shows only at expiry. */
const SHORT_TTL_S = 12;
/**
 * The lifetime of a row whose fault shows only at a rollover: the fault's half of 12 s failed only
 * when the next token was seen within 5 s of the expiry before it, and the heavy phase's starved
 * thread saw it 5 s late (CI 48h, 53f, 53i: 3.6–12.0 s, consistent with 12). Half of 24 s fails
 * when seen within 10 s; such a late rollover is "not tested" since 6 Dec, never a pass.
 */
const ROLLOVER_TTL_S = 24;

/** The lifetime `row`'s pair issues, and promises. */
const ttlOf = (row: Row): number =>
  row.faults.some((f) => AT_A_ROLLOVER.has(f)) ? ROLLOVER_TTL_S : row.expiry ? SHORT_TTL_S : 86_400;

export interface Row {
  name: string;
  faults: FaultName[];
  profiles: ProfileName[];
  /** Production's failing must check the verdict must name, or none for a conformant row (READY). */
  check?: string;
  expiry: boolean;
  load: boolean;
}

export const FAULT_ROWS: Row[] = FAULTS.filter((f) => !NOT_A_PRODUCTION_ROW.has(f.name)).map((f) => {
  const want = CAUGHT_BY[f.name];
  return {
    name: f.name,
    faults: [f.name],
    profiles: want.profiles ?? [],
    check: want.check,
    expiry: want.expiry === true || AT_A_ROLLOVER.has(f.name),
    load: BEHIND_THE_LIMIT.has(want.check),
  };
});
// Production announces its limit (ratelimit-headers, added to each group that announces none), so READY
// is reachable without probing production: what a READY row proves is the profiles, not a probe's
// precision on a busy machine (test/cli/cutover.test.ts holds the probed READY).
export const PROFILE_ROWS: Row[] = PROFILE_GROUPS.map((group) => ({
  name: group.join('+'),
  faults: [],
  profiles: group.some((p) => p.startsWith('ratelimit-headers')) ? [...group] : [...group, 'ratelimit-headers'],
  expiry: false,
  load: false,
}));

/**
 * `rows` in the order to start them, the longest first: vitest starts a file's concurrent rows five at
 * a time in the order given, so a long row started late ends the file alone. In table order the
 * opted-in rate-limit-never-lifts (71 s: production probed under --allow-production-load) started
 * 30th, and the 44 fault rows took 126 s where their 448 s in five lanes fill 91. First a row that
 * loads production (opted in), then one that waits out an expiry (25-34 s), then the rest in table
 * order: conformant rows last, as before, for each probes sandbox, and begun together beside the
 * table's start they took 83-107 s each instead of 16-22 (and one read sandbox's limit too loosely
 * to be READY).
 */
export function longestFirst(rows: Row[], optIn: boolean): Row[] {
  const cost = (r: Row) => (optIn && r.load ? 2 : r.expiry ? 1 : 0);
  return [...rows].sort((a, b) => cost(b) - cost(a));
}

/** The pair's config; with `optIn`, production allows one business endpoint. */
function config(dir: string, name: string, e: Emulator, row: Row, optIn: boolean) {
  const expiry = row.expiry ? `expect:\n  token_lifetime_s: ${ttlOf(row)}\n  expiry_wait_s: 30\n` : '';
  const business = optIn
    ? 'business:\n  evaluation:\n    method: POST\n    body: {}\n    production: { allow: true, body: { note: "production payload" } }\n'
    : '';
  return pairConfig(dir, name, e, { maxRequests: 2000, extra: `${expiry}${business}` });
}

/**
 * `cutover` over `row` in `dir` (report folder `r-<row>-opted-in` or `-read-only`), with production's
 * opt-ins when `optIn`; the pair goes into `started` for the caller to close.
 */
export async function cutoverRow(
  dir: string,
  started: Emulator[],
  row: Row,
  optIn: boolean,
): Promise<{ res: CliResult; report: CutoverReport; seen: Pair }> {
  const seen = await cutoverPair({
    tokenTtlS: ttlOf(row),
    perEnvironment: { production: { faults: row.faults, profiles: row.profiles } },
  });
  started.push(seen.emulator);
  const name = `${row.name}-${optIn ? 'opted-in' : 'read-only'}`;
  const { file, env } = config(dir, name, seen.emulator, row, optIn);
  const reportDir = join(dir, `r-${name}`);
  const load = optIn && row.load ? ['--allow-production-load'] : [];
  const res = await runCliInProcess(['cutover', '--config', file, '--report-dir', reportDir, ...load], {
    cwd: dir,
    env,
    timeoutMs: 290_000,
  }).catch((err: Error) => {
    // Stopped at its limit, the run wrote a partial report: its notes say why a probe ran long.
    const md = join(reportDir, 'report.md');
    throw existsSync(md)
      ? new Error(`${err.message}\n--- its partial report.md ---\n${readFileSync(md, 'utf8').slice(0, 30_000)}`)
      : err;
  });
  expect(existsSync(join(reportDir, 'report.json')), `exit ${res.code}: ${res.stderr}`).toBe(true);
  const report = JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as CutoverReport;
  return { res, report, seen };
}
