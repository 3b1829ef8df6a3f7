// `bench/ratelimit.ts --from-evidence`: a row's figures read again from what it kept, so a bench
// stopped part-way still gives the rows it finished.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evidenceRun } from '../../bench/ratelimit-stage.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function kept(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ces-bench-evidence-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

const report = JSON.stringify({
  rate_limit: {
    sustained_rps: 24.94,
    limiter: { kind: 'bucket', rate_rps: 24.94, burst: 11 },
    requests_sent: 330,
    requests_limited: 26,
    duration_s: 13.07,
    notes: [],
    recommendation: { target_rps: 19 },
    proof: { rate_429: 0 },
    proof_rounds: [
      { verdict: 'fails', target_rps: 24 },
      { verdict: 'holds', target_rps: 19 },
    ],
  },
});

describe('a bench row read from its evidence', () => {
  it("takes the stage's time from stage.log and the figures from report.json, the round that proved the rate given", async () => {
    const run = await evidenceRun(await kept({ 'report.json': report, 'stage.log': 'exit 0, 134.5 s\n… tail\n' }));
    expect(run).toMatchObject({
      stageSeconds: 134.5,
      seconds: 13.07,
      recommendedRps: 19,
      proof429: 0,
      proofVerdict: 'holds (round 2)',
    });
  });

  // Flask-Limiter's moving windows on the bench (5 Dec): 1.65 req/s held over the horizon (round 6),
  // 1.4 given below it, and two raises above it refused (rounds 7 and 8): the row read "fails
  // (round 8)", the last round, as no round ran at 1.4 itself.
  it('a search that gives its policy below the hold: the hold nearest above it proved it, not a scout, not a raise refused after it', async () => {
    const searched = JSON.parse(report) as { rate_limit: Record<string, unknown> };
    searched.rate_limit.recommendation = { target_rps: 1.4 };
    searched.rate_limit.proof_rounds = [
      { verdict: 'holds', target_rps: 2.3, scout_s: 31 },
      { verdict: 'fails', target_rps: 2.6 },
      { verdict: 'holds', target_rps: 1.65 },
      { verdict: 'fails', target_rps: 2.3 },
      { verdict: 'fails', target_rps: 1.9 },
    ];
    const run = await evidenceRun(
      await kept({ 'report.json': JSON.stringify(searched), 'stage.log': 'exit 0, 584.6 s\n' }),
    );
    expect(run).toMatchObject({ recommendedRps: 1.4, proofVerdict: 'holds (round 3)' });
  });

  it('is no row when the stage kept no report or no log, and an error when the log does not say how long it took', async () => {
    expect(await evidenceRun(await kept({ 'stage.log': 'exit 0, 1.0 s\n' }))).toBeNull();
    expect(await evidenceRun(await kept({ 'report.json': report }))).toBeNull();
    expect(await evidenceRun(await kept({ 'report.json': report, 'stage.log': 'garbled\n' }))).toEqual({
      error: 'stage.log does not say how long the stage took',
    });
  });
});
