// The other half of "every fault is caught": a service unlike our emulator, in the ways real
// deployments are (a gateway in front, JWTs, extra fields, another date format, …), but conformant,
// must never fail the run. Each emulator profile is run through `check` and `run` as a user runs
// them; anything but exit 0 and PASS is a false alarm, and the failing lines say which check.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKS } from '../../checks/index.js';
import { PROFILES } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';

let cwd: string;
beforeAll(async () => {
  // A folder of its own: no ces-harness.yaml is found, so the built-in emulator is tested.
  cwd = await mkdtemp(join(tmpdir(), 'ces-profiles-'));
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

/** The CLI's lines that are not a pass, so a failure names the check that raised a false alarm. */
const notPassed = (out: string) => out.split('\n').filter((l) => /^\s*(✗ fail|! warn|E error|FAIL|not tested)/.test(l));

const COMMANDS = [
  // `run` with a short load: the profile must survive k6's connections as well as undici's.
  { command: 'check', extra: [], timeoutMs: 120_000 },
  { command: 'run', extra: ['--duration', '2'], timeoutMs: 240_000 },
] as const;

describe.each(COMMANDS)('$command against each conformant profile', ({ command, extra, timeoutMs }) => {
  it.each(PROFILES.map((p) => [p.name, p.description] as const))('%s passes (%s)', async (name) => {
    const reportDir = join(cwd, `${command}-${name}`);
    const r = await runCli([command, '--profile', name, '--report-dir', reportDir, ...extra], { cwd, timeoutMs });
    const out = r.stdout + r.stderr;
    expect({ code: r.code, notPassed: notPassed(out) }).toEqual({ code: 0, notPassed: [] });
    // report.json parses, and the harness's own words (check ids) come back as they went in.
    const report = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8')) as { verdict: string; checks: Array<{ id: string }> };
    expect(report.verdict).toBe('pass');
    const ids = new Set(CHECKS.map((c) => c.id));
    expect(report.checks.map((c) => c.id).filter((id) => !ids.has(id))).toEqual([]);
  }, timeoutMs + 10_000);
});
