// Colour follows the shared conventions: --no-color, then FORCE_COLOR, then NO_COLOR and
// TERM=dumb, then whether stdout is a terminal. The table is the rule; the runs (stdout not a terminal) show a
// user piping `check` into a CI log sees colour with FORCE_COLOR=1, and none without it.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colorWanted } from '../../src/cli/color.js';
import { runCliInProcess } from '../helpers/cli.js';

describe('colorWanted', () => {
  it.each([
    { isTTY: true, env: {}, flag: false, want: true },
    { isTTY: false, env: {}, flag: false, want: false },
    { isTTY: false, env: { FORCE_COLOR: '1' }, flag: false, want: true },
    { isTTY: false, env: { FORCE_COLOR: '' }, flag: false, want: true },
    { isTTY: false, env: { FORCE_COLOR: '3' }, flag: false, want: true },
    { isTTY: true, env: { FORCE_COLOR: '0' }, flag: false, want: false },
    { isTTY: true, env: { FORCE_COLOR: 'false' }, flag: false, want: false },
    { isTTY: false, env: { FORCE_COLOR: '1', NO_COLOR: '1' }, flag: false, want: true },
    { isTTY: false, env: { FORCE_COLOR: '1' }, flag: true, want: false },
    { isTTY: true, env: { NO_COLOR: '1' }, flag: false, want: false },
    { isTTY: true, env: { NO_COLOR: '' }, flag: false, want: true },
    { isTTY: true, env: { TERM: 'dumb' }, flag: false, want: false },
    { isTTY: true, env: {}, flag: true, want: false },
  ])('tty $isTTY, env $env, --no-color $flag → $want', ({ isTTY, env, flag, want }) => {
    expect(colorWanted({ isTTY, env, noColorFlag: flag })).toBe(want);
  });
});

describe('ces-harness check with its output piped', () => {
  const check = (env: Record<string, string>, extra: string[] = []) => {
    const cwd = mkdtempSync(join(tmpdir(), 'ces-color-'));
    return runCliInProcess(['check', '--only', 'health.no-credentials', '--report-dir', join(cwd, 'r'), ...extra], {
      cwd,
      env,
    });
  };
  const painted = /\x1b\[\d+m/;

  it('FORCE_COLOR=1 paints it, although stdout is a pipe', async () => {
    const res = await check({ NO_COLOR: '', FORCE_COLOR: '1' });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(painted);
  });

  it('without FORCE_COLOR, or with --no-color, it stays plain', async () => {
    for (const [env, extra] of [
      [{ NO_COLOR: '' }, []],
      [{ FORCE_COLOR: '1' }, ['--no-color']],
    ] as const) {
      const res = await check(env, [...extra]);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).not.toMatch(painted);
    }
  });
});
