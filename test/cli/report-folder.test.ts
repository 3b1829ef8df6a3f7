// Two runs started in the same second (a CI matrix, a quick re-run) each keep their own report:
// the dated folder is claimed with an atomic mkdir, never checked first and made later.

import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimReportDir } from '../../src/cli/report-place.js';
import { runCli } from '../helpers/cli.js';

const work = () => mkdtempSync(join(tmpdir(), 'ces-report-folder-'));

describe('claimReportDir', () => {
  it('gives every claim in the same second its own, existing folder', () => {
    const parent = work();
    const at = new Date(Date.UTC(2026, 10, 22, 12, 0, 0, 250));
    const later = new Date(at.getTime() + 500);
    const dirs = [
      claimReportDir(parent, 'sandbox', at),
      claimReportDir(parent, 'sandbox', later),
      claimReportDir(parent, 'sandbox', at),
    ];
    expect(dirs.map((d) => d.slice(parent.length + 1))).toEqual([
      '20261122T120000Z-sandbox',
      '20261122T120000Z-sandbox-2',
      '20261122T120000Z-sandbox-3',
    ]);
    for (const d of dirs) expect(existsSync(d)).toBe(true);
  });

  it('keeps an environment name from leaving the reports folder', () => {
    const parent = work();
    expect(claimReportDir(parent, '../prod', new Date(0)).slice(parent.length + 1)).toBe('19700101T000000Z-.._prod');
  });
});

// Both CLIs see one frozen wall clock, so that they certainly start "in the same second" however
// busy the machine is. The check takes over a second, so both claim their folder before either writes it.
const FROZEN_CLOCK = `data:text/javascript,${encodeURIComponent(`
  const at = Number(process.env.CES_TEST_FROZEN_MS), Real = Date;
  globalThis.Date = class extends Real { constructor(...a) { a.length ? super(...a) : super(at); } static now() { return at; } };
`)}`;

describe('two runs at once in one folder', () => {
  it('write two reports into two folders, even in the same second', async () => {
    const cwd = work();
    const args = ['check', '--only', 'token.same-before-expiry'];
    const env = { NODE_OPTIONS: `--import=${FROZEN_CLOCK}`, CES_TEST_FROZEN_MS: String(Date.now()) };
    const results = await Promise.all([runCli(args, { cwd, env }), runCli(args, { cwd, env })]);
    for (const r of results) expect(r.code, r.stdout + r.stderr).toBe(0);
    const folders = results.map((r) => /^report: (.+)$/m.exec(r.stdout)?.[1]);
    const names = readdirSync(join(cwd, 'reports')).sort();
    expect(names).toEqual([
      expect.stringMatching(/^\d{8}T\d{6}Z-sandbox$/),
      expect.stringMatching(/^\d{8}T\d{6}Z-sandbox-2$/),
    ]);
    expect(names[1]!.startsWith(names[0]!)).toBe(true);
    expect(folders.map((f) => f!.split('/').at(-1)).sort()).toEqual(names);
    for (const f of folders) expect(JSON.parse(readFileSync(join(f!, 'report.json'), 'utf8')).verdict).toBe('pass');
  });
});
