// The count before the first 429 side by side: the same bucket (50/s, 50 at once) admits 67 of a
// burst offered at 200/s and about 180 of one a loaded machine held to 69/s. Cutover showed both
// as one comparison; now, as the history does (history/comparable.ts), it compares the count only
// between bursts offered within ×1.2, and says "not compared: offered X vs Y req/s" everywhere it
// shows them. What the check records comes from the check itself on the virtual clock.

import { describe, expect, it } from 'vitest';
import { environmentFacts } from '../../src/cutover/facts.js';
import { renderCutoverHtml } from '../../src/cutover/report-html.js';
import { renderCutoverMarkdown, sideBySideRows } from '../../src/cutover/report-md.js';
import { CUTOVER_SCHEMA, type CutoverReport } from '../../src/cutover/report-model.js';
import { cutoverVerdict, type VerdictContext } from '../../src/cutover/verdict.js';
import type { FactValue } from '../../src/history/record.js';
import { burstFacts } from '../runner/burst-facts.js';

const ctx: VerdictContext = {
  windowDays: 14,
  nowMs: Date.parse('2026-11-26T12:00:00Z'),
  productionLoadAllowed: true,
  passesUntested: [],
};

/** Both sides' facts as cutover reads them, from the burst check's recorded facts. */
function sides(production: Record<string, FactValue>, sandbox: Record<string, FactValue>) {
  const of = (env: string, facts: Record<string, FactValue>) =>
    environmentFacts(env, `https://${env}.example.test`, [{ id: 'ratelimit.limit-enforced', status: 'pass', facts }]);
  return { p: of('production', production), s: of('sandbox', sandbox) };
}

function report(p: ReturnType<typeof sides>['p'], s: ReturnType<typeof sides>['s']): CutoverReport {
  return {
    schema: CUTOVER_SCHEMA,
    tool: { name: 'ces-harness', version: '0.0.0' },
    started_at: '2026-11-26T12:00:00Z',
    finished_at: '2026-11-26T12:00:09Z',
    cutover: {
      ...cutoverVerdict(p, s, ctx),
      window_days: 14,
      sandbox_source: 'this run',
      facts: { production: p, sandbox: s },
    },
    environments: {},
  };
}

const ROW = 'requests before the first 429';

describe('cutover: the burst count between two offered rates', () => {
  it('is not compared when the rates lie more than ×1.2 apart, in every format that shows it; the verdict does not move', async () => {
    const idle = await burstFacts({ rps: 50, burst: 50 });
    const loaded = await burstFacts({ rps: 50, burst: 50 }, 14.5);
    const { p, s } = sides(idle, loaded);
    expect([p.offered_rps, s.offered_rps]).toEqual([idle['offered_rps'], loaded['offered_rps']]);
    const r = report(p, s);
    const why = `not compared: offered ${Number(p.offered_rps!.toPrecision(3))} vs ${Number(s.offered_rps!.toPrecision(3))} req/s (compared only within ×1.2)`;
    const line = `${ROW}: ${p.accepted_before_limit} on production, ${s.accepted_before_limit} on sandbox, ${why}`;
    expect(r.cutover.not_compared).toEqual([line]);
    // The row says it of itself, where the two figures sit next to each other (report.md and .html).
    expect(sideBySideRows(p, s)).toContainEqual([
      `${ROW} (${why})`,
      String(p.accepted_before_limit),
      String(s.accepted_before_limit),
    ]);
    expect(renderCutoverMarkdown(r)).toContain(`### Not compared\n\n- ${line}`);
    const html = renderCutoverHtml(r);
    expect(html).toContain('<section id="not-compared"><h2>Not compared</h2>');
    expect(html).toContain(`<td>${ROW} (${why})</td>`);
    // No rule reads a burst count: what stays apart is said, and READY is not taken away.
    expect(r.cutover.verdict).toBe(
      cutoverVerdict(p, { ...s, accepted_before_limit: p.accepted_before_limit }, ctx).verdict,
    );
  });

  it('is shown as a comparison between like rates, and a side that did not record its rate is compared with none', async () => {
    const idle = await burstFacts({ rps: 50, burst: 50 });
    const halved = await burstFacts({ rps: 25, burst: 25 });
    const like = sides(idle, halved);
    expect(like.p.accepted_before_limit).not.toBe(like.s.accepted_before_limit);
    expect(cutoverVerdict(like.p, like.s, ctx).not_compared).toEqual([]);
    expect(sideBySideRows(like.p, like.s)).toContainEqual([
      ROW,
      String(like.p.accepted_before_limit),
      String(like.s.accepted_before_limit),
    ]);

    // A sandbox run stored by a harness that did not record the rate (--sandbox-from-history).
    const { offered_rps: _, ...older } = idle;
    const unrecorded = sides(idle, older);
    expect(cutoverVerdict(unrecorded.p, unrecorded.s, ctx).not_compared).toEqual([
      `${ROW}: ${idle['accepted_before_limit']} on production, ${idle['accepted_before_limit']} on sandbox, not compared: offered ${Number((idle['offered_rps'] as number).toPrecision(3))} req/s vs a rate not recorded (compared only within ×1.2)`,
    ]);
  });
});
