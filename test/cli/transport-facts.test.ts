// report.json's transport: which HTTP versions the service offers by ALPN, asked beside the checks
// (from their first result on, src/cli/commands/check.ts), and which the checks spoke. In-process,
// against the built-in emulator, with one check: the question must be answered however short the run.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/report/model.js';
import { runCliInProcess } from '../helpers/cli.js';

async function transportOf(...extra: string[]): Promise<Report['target']['transport']> {
  const cwd = mkdtempSync(join(tmpdir(), 'ces-transport-'));
  const res = await runCliInProcess(['check', '--only', 'token.issue', '--report-dir', 'r', ...extra], { cwd });
  expect(res.code, res.stdout + res.stderr).toBe(0);
  return (JSON.parse(readFileSync(join(cwd, 'r', 'report.json'), 'utf8')) as Report).target.transport;
}

describe('the transport a check run reports', () => {
  it('names both versions a service offers alone by ALPN, and the one the checks spoke', async () => {
    expect(await transportOf('--profile', 'http2')).toMatchObject({
      http_offered: ['h2', 'http/1.1'],
      http_used: { h2: 1 },
    });
  });

  it('names HTTP/1.1 only when the service offers nothing else', async () => {
    expect(await transportOf()).toMatchObject({ http_offered: ['http/1.1'], http_used: { 'http/1.1': 1 } });
  });
});
