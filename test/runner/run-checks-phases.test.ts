// The phases of runChecks: `first` alone, `main` concurrently, `last` alone after, `closing` after
// all; and the caller's hold before `last` (`run` keeps the checks that pace past the limit until
// its load beside them has ended). Event-driven: each check records when it ran, no timing.

import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/http/redact.js';
import type { Check, CheckContext, Phase } from '../../src/runner/check.js';
import { runChecks } from '../../src/runner/run-checks.js';

const ctx = { redactor: new Redactor() } as unknown as CheckContext;

function phased(log: string[]) {
  const check = (id: string, phase: Phase): Check => ({
    id,
    title: id,
    spec: '3',
    level: 'must',
    phase,
    description: id,
    run: async () => {
      log.push(id);
      return { status: 'pass', message: 'ran' };
    },
  });
  return [check('a.first', 'first'), check('b.main', 'main'), check('c.last', 'last'), check('d.closing', 'closing')];
}

describe('runChecks', () => {
  it('runs the phases in order, and nothing of `last` before beforeLast resolves', async () => {
    const log: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const running = runChecks(phased(log), ctx, {
      beforeLast: () => {
        log.push('asked');
        return held;
      },
    });
    // Let everything that can run do so: the `last` phase must still be waiting.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['a.first', 'b.main', 'asked']);
    release();
    const results = await running;
    expect(log).toEqual(['a.first', 'b.main', 'asked', 'c.last', 'd.closing']);
    expect(results.map((r) => r.status)).toEqual(['pass', 'pass', 'pass', 'pass']);
  });
});
