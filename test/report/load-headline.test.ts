// The load section's headline in report.md and report.html: a k6 crash is "did not complete",
// never "thresholds not met", which would blame the service for k6 failing.

import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { LoadResult, LoadScenarioResult } from '../../src/report/model.js';
import { loadHeadline } from '../../src/report/common/select.js';
import { loadFixture } from './helpers.js';
import { loadScenario } from '../helpers/load-scenario.js';

const scenario = loadScenario;
const crossed = [{ metric: 'http_req_duration', expression: 'p(95)<500', ok: false }];
const crashed = 'k6 crashed (exit 107: the script threw)';

const cases: Array<{ name: string; scenarios: LoadScenarioResult[]; ok: boolean; headline: string }> = [
  { name: 'all met', scenarios: [scenario({})], ok: true, headline: 'thresholds met' },
  {
    name: 'a threshold crossed',
    scenarios: [scenario({ thresholds: crossed })],
    ok: false,
    headline: 'thresholds not met',
  },
  {
    name: 'k6 crashed',
    scenarios: [scenario({ error: crashed }), scenario({ scenario: 'tls' })],
    ok: false,
    headline: '1 of 2 scenario(s) did not complete',
  },
  {
    name: 'both',
    scenarios: [scenario({ error: crashed }), scenario({ thresholds: crossed })],
    ok: false,
    headline: '1 of 2 scenario(s) did not complete; thresholds not met',
  },
  {
    name: 'stopped with neither (interrupted)',
    scenarios: [scenario({})],
    ok: false,
    headline: 'the load run did not finish',
  },
];

describe('loadHeadline', () => {
  it.each(cases)('$name → "$headline", in report.md and report.html', ({ scenarios, ok, headline }) => {
    const load: LoadResult = { k6_version: '2.2.0', run_id: 'r1', scenarios, ok };
    expect(loadHeadline(load)).toBe(headline);
    const report = { ...loadFixture('pass'), load };
    expect(renderMarkdown(report)).toContain(`${ok ? '✅' : '❌'} ${headline}`);
    expect(renderHtml(report)).toMatch(
      new RegExp(
        `<strong class="${ok ? 'ok' : 'bad'}"><svg class="icon"[^>]*>.*?</svg> ${headline.replace(/[()]/g, '\\$&')}</strong>`,
      ),
    );
  });
});
