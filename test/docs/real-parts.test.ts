// `npm test` on a machine without Chromium, nginx, openssl or k6 skips the tests that need them,
// and says so at the end of the run, with the fix: never a silent skip.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { missingParts, missingPartsReport } from '../helpers/real-parts.js';
import { projectRoot } from '../k6/support.js';

describe('missing real parts', () => {
  it('names each missing part, what was looked for, how to get it, and what skips', async () => {
    const missing = await missingParts({
      ...process.env,
      CHROMIUM_PATH: '/nonexistent/chromium',
      OPENSSL_BINARY: '/nonexistent/openssl',
      K6_BINARY: '/nonexistent/k6',
    });
    expect(missing.map((m) => m.part)).toEqual(expect.arrayContaining(['Chromium', 'openssl', 'k6']));
    const lines = missingPartsReport(missing);
    expect(lines[0]).toMatch(/^ces-harness tests: \d real parts are missing, so the tests that need them SKIP here/);
    expect(lines).toContain(
      '  - Chromium: not found at /nonexistent/chromium; apt-get install chromium, or set CHROMIUM_PATH. Skipped: report.html in a real browser (test/report/browser.test.ts)',
    );
    expect(lines.find((l) => l.startsWith('  - k6: '))).toContain('K6_BINARY');
  });

  it('nothing is said when everything is here', () => {
    expect(missingPartsReport([])).toEqual([]);
  });

  it('a vitest run ends with the line, under its summary', async () => {
    const env = {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      CHROMIUM_PATH: '/nonexistent/chromium',
      NO_COLOR: '1',
    };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', 'test/cli/flags.test.ts'],
      { cwd: projectRoot, env, timeout: 60_000 },
    );
    const summary = stdout.indexOf('Test Files');
    const note = stdout.indexOf('ces-harness tests: ');
    expect(summary).toBeGreaterThan(-1);
    expect(note).toBeGreaterThan(summary);
    expect(stdout.slice(note)).toContain('Chromium: not found at /nonexistent/chromium; apt-get install chromium');
  }, 90_000);
});
