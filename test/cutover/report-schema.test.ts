// schema/cutover.schema.json against the report.json of real cutovers: `main` in this process against
// the built-in emulator's two environments, a conformant pair and a pair whose production breaks a
// sandbox-built client; and the schema refusing what a CI step must not be handed as a verdict.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../src/emulator/index.js';
import type { CutoverReport } from '../../src/cutover/report-model.js';
import { runCliInProcess } from '../helpers/cli.js';
import { expectValidCutover, validateCutover } from '../report/schema.js';

const dir = mkdtempSync(join(tmpdir(), 'ces-cutover-schema-'));
const started: Emulator[] = [];
afterAll(async () => Promise.all(started.map((e) => e.close())));

/** A cutover of a fresh emulator pair, its report.json parsed. */
async function cutover(name: string, options: Omit<EmulatorOptions, 'port' | 'environments'> = {}) {
  const emulator = await createEmulator({ port: 0, environments: ['sandbox', 'production'], ...options });
  started.push(emulator);
  const env: Record<string, string> = {};
  const blocks = emulator.environments.map((e, i) => {
    env[`ID_${i}`] = e.credentials.clientId;
    env[`SECRET_${i}`] = e.credentials.clientSecret;
    return `  ${e.name}:\n    base_url: ${e.url}\n    client_id: \${ID_${i}}\n    client_secret: \${SECRET_${i}}\n    ca_file: ${e.caFile}\n`;
  });
  const config = join(dir, `${name}.yaml`);
  writeFileSync(
    config,
    `environments:\n${blocks.join('')}ledger: off\nhistory: off\nproduction:\n  max_requests: 1000\nrate_limit:\n  max_rps: 100\n`,
  );
  const reportDir = join(dir, `r-${name}`);
  const res = await runCliInProcess(['cutover', '--config', config, '--report-dir', reportDir], {
    cwd: dir,
    env,
    timeoutMs: 120_000,
  });
  return { res, report: JSON.parse(readFileSync(join(reportDir, 'report.json'), 'utf8')) as CutoverReport };
}

describe('schema/cutover.schema.json', () => {
  const runs = {
    conformant: cutover('conformant'),
    'validate-method': cutover('validate-method', { perEnvironment: { production: { validateMethods: ['POST'] } } }),
  };
  // Both run side by side from the start; a failure surfaces in the test that awaits it.
  for (const run of Object.values(runs)) run.catch(() => undefined);

  it.each(Object.keys(runs) as Array<keyof typeof runs>)(
    'the %s pair: its report.json validates, and its verdict is the exit code',
    async (name) => {
      const { res, report } = await runs[name];
      // Once failed in a loaded fast tier with its message lost: each expectation now says what the run said.
      const said = `exit ${res.code}\n${res.stdout}\n${res.stderr}\n${JSON.stringify(report.cutover, null, 1)}`;
      expectValidCutover(report);
      expect(res.code, said).toBe(report.cutover.verdict === 'READY' ? 0 : 1);
      if (name === 'validate-method') expect(report.cutover.verdict, said).toBe('NOT READY');
      // Sandbox's burst and the rate it was offered at, which decides whether it is compared (not-compared.ts).
      expect(report.cutover.facts.sandbox.accepted_before_limit, said).toBeGreaterThan(0);
      expect(report.cutover.facts.sandbox.offered_rps, said).toBeGreaterThan(0);
      expect(report.cutover.not_compared, said).toEqual(expect.any(Array));
    },
    150_000,
  );

  // A verdict that disagrees with its own lists, or a word outside the enum, is what a CI gate
  // reading `cutover.verdict` must never be handed as valid.
  it.each<[string, (r: CutoverReport) => void]>([
    ['another schema id', (r) => ((r as { schema: string }).schema = 'ces-harness/cutover/v2')],
    ['a verdict outside the enum', (r) => ((r.cutover as { verdict: string }).verdict = 'READY?')],
    ['READY with a breaking line', (r) => ((r.cutover.verdict = 'READY'), r.cutover.breaking.push('x breaks'))],
    [
      'READY with a breaking finding',
      (r) => ((r.cutover.verdict = 'READY'), (r.cutover.findings[0]!.status = 'breaking')),
    ],
    [
      'READY with something not tested',
      (r) => ((r.cutover.verdict = 'READY'), r.cutover.not_tested.push('y: not known')),
    ],
    ['NOT READY with nothing breaking', (r) => ((r.cutover.verdict = 'NOT READY'), (r.cutover.breaking = []))],
    [
      'NOT TESTED with nothing listed as not tested',
      (r) => ((r.cutover.verdict = 'NOT TESTED'), (r.cutover.breaking = []), (r.cutover.not_tested = [])),
    ],
    ['a finding status outside the enum', (r) => ((r.cutover.findings[0] as { status: string }).status = 'fine')],
    ['a finding without its id', (r) => delete (r.cutover.findings[0] as { id?: string }).id],
    [
      'an environment check status outside the enum',
      (r) => ((Object.values(r.environments)[0]!.checks[0] as { status: string }).status = 'ok'),
    ],
    ['an empty not-compared line', (r) => (r.cutover.not_compared = [''])],
    ['the facts of one side missing', (r) => delete (r.cutover.facts as { sandbox?: unknown }).sandbox],
  ])(
    'refuses %s',
    async (_, breakIt) => {
      const { report } = await runs['validate-method'];
      const copy = structuredClone(report);
      expect(validateCutover(copy)).toBe(true);
      breakIt(copy);
      expect(validateCutover(copy)).toBe(false);
    },
    150_000,
  );
});
