// report.md of `cutover`: for the change ticket. The verdict and what will break come first.

import { FACT_SOURCES, type EnvironmentFacts } from './facts.js';
import { notComparedFacts } from './not-compared.js';
import type { CutoverReport } from './report-model.js';
import { mdEscape, mdTable } from '../report/common/md-text.js';
import { productionSectionMd } from '../report/sections/production/md.js';

/** Rows of the side-by-side table, shared by report.md and report.html. */
export function sideBySideRows(p: EnvironmentFacts, s: EnvironmentFacts): Array<[string, string, string]> {
  const show = (e: EnvironmentFacts, name: string): string => {
    const value = (e as unknown as Record<string, unknown>)[name];
    return value === undefined ? 'not known' : String(value);
  };
  // Shown only when one did not verify; every pass that ran got past a verified handshake.
  const verifies = (e: EnvironmentFacts) =>
    e.certificate_untrusted === undefined ? 'yes' : `no: ${e.certificate_untrusted}`;
  const untrusted = p.certificate_untrusted ?? s.certificate_untrusted;
  // A row side by side reads as a comparison: one read under conditions too far apart says so.
  const apart = new Map(notComparedFacts(p, s).map((n) => [n.fact, n.why]));
  const labelOf = (name: string, label: string) => (apart.has(name) ? `${label} (${apart.get(name)!})` : label);
  return [
    ...(untrusted !== undefined
      ? [['certificate verifies', verifies(p), verifies(s)] as [string, string, string]]
      : []),
    ...FACT_SOURCES.map(({ name, label }): [string, string, string] => [
      labelOf(name, label),
      show(p, name),
      show(s, name),
    ]),
    ['rate limit announced', show(p, 'rate_limit_announced'), show(s, 'rate_limit_announced')],
    ['rate limit measured (req/s)', show(p, 'rate_limit_measured_rps'), show(s, 'rate_limit_measured_rps')],
    ['client rate recommended (req/s)', show(p, 'rate_limit_recommended_rps'), show(s, 'rate_limit_recommended_rps')],
    ['credentials isolated', show(p, 'credentials_isolated'), show(s, 'credentials_isolated')],
  ];
}

const bullets = (title: string, lines: readonly string[]): string =>
  lines.length ? `### ${title}\n\n${lines.map((l) => `- ${mdEscape(l)}`).join('\n')}` : '';

export function renderCutoverMarkdown(r: CutoverReport): string {
  const c = r.cutover;
  const { production: p, sandbox: s } = c.facts;
  return (
    [
      `# Cutover readiness: ${c.verdict}`,
      mdEscape(c.summary),
      `Production ${mdEscape(p.base_url)} (production-safe pass) against sandbox ${mdEscape(s.base_url)} (${mdEscape(c.sandbox_source)}); cutover window ${c.window_days} days; ${r.started_at} – ${r.finished_at}.`,
      bullets('Will break a client integrated against sandbox', c.breaking),
      bullets('Sandbox itself deviates from the spec', c.sandbox_deviations),
      bullets('Not tested', c.not_tested),
      bullets('Differs', c.differences),
      bullets('Not compared', c.not_compared),
      `### Side by side\n\n${mdTable(
        ['fact', 'production', 'sandbox'],
        ['l', 'l', 'l'],
        sideBySideRows(p, s).map((row) => row.map(mdEscape)),
      )}`,
      ...Object.entries(r.environments).map(
        ([name, e]) =>
          `### Checks on ${mdEscape(name)}\n\n${mdTable(
            ['check', 'status', 'message'],
            ['l', 'l', 'l'],
            e.checks.map((k) => [k.id, k.status, mdEscape(k.message)]),
          )}${e.untested.length ? `\n\nNot tested: ${e.untested.map(mdEscape).join('; ')}` : ''}`,
      ),
      productionSectionMd(r.production) ?? '',
    ]
      .filter(Boolean)
      .join('\n\n') + '\n'
  );
}
