// The k6 figures of a scenario said as findings, in report.md and report.html alike, with the cost
// of a token per call as a chart; figures no finding says stay visible, folded.

import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { scenarioFindings } from '../../src/report/sections/findings/words.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { loadScenario } from '../helpers/load-scenario.js';
import { loadFixture } from './helpers.js';

const said = (extra: Record<string, number | string>) => scenarioFindings(loadScenario({ extra }));

const cases: Array<{ name: string; extra: Record<string, number>; text: string }> = [
  {
    name: 'token per call against cached',
    extra: {
      'logical_call_duration_cached p50_ms': 4,
      'logical_call_duration_cached p95_ms': 8,
      'logical_call_duration_token_per_call p50_ms': 700,
      'logical_call_duration_token_per_call p95_ms': 1125,
      'http_req_duration{mode:cached} p95_ms': 7,
      token_per_call_cost_p50_ms: 696,
    },
    text: 'A logical business call took p95 1,125 ms with a token fetched per call, against 8 ms with a cached token (141× as long); medians 700 ms and 4 ms.',
  },
  {
    name: '429s waited out',
    extra: { rate_limited_responses: 9, retry_after_waits: 9, retries: 10, logical_calls_lost: 0 },
    text: 'The service answered 429 9 times; 9 waits followed its Retry-After, 10 retries in all, no logical call was lost.',
  },
  {
    name: 'no 429, a lost call',
    extra: { rate_limited_responses: 0, logical_calls_lost: 1 },
    text: 'No answer was 429; 1 logical call was lost.',
  },
  {
    name: 'TLS suites seen',
    extra: {
      tls_seen_version_tls1_3: 76,
      tls_seen_suite_TLS_AES_128_GCM_SHA256: 70,
      tls_seen_suite_TLS_CHACHA20_POLY1305_SHA256: 6,
      tls_seen_suite_TLS_AES_256_GCM_SHA384: 0,
    },
    text: 'Connections negotiated TLS 1.3 (76) with TLS_AES_128_GCM_SHA256 (70), TLS_CHACHA20_POLY1305_SHA256 (6).',
  },
  {
    name: 'TLS 1.2 let in',
    extra: { 'tls12-refused: tls12_connection_accepted': 0.5 },
    text: 'A TLS 1.2-only client got through on 50.00% of its attempts (§5.8 allows TLS 1.3 only).',
  },
  {
    name: 'token changed before expiry',
    extra: { token_changed_before_expiry: 2 },
    text: 'The token changed 2 times before its expires_at (§3 wants the same token until then).',
  },
];

describe('scenarioFindings', () => {
  it.each(cases)('$name', ({ extra, text }) => {
    const f = said(extra);
    expect(f.findings.map((x) => x.text)).toContain(text);
    // Every figure a sentence uses is claimed; none is left over to be repeated as a raw row.
    expect(f.rest).toEqual([]);
  });

  it('says first what the figures are of: a rate sized from the limit, or a scenario the limit kept from a verdict', () => {
    const sized = scenarioFindings(
      loadScenario({
        extra: { rate_limited_responses: 0 },
        sized: { default_rps: 20, rps: 1.9, policy_rps: 7.9, policy_proven: true },
      }),
    );
    expect(sized.findings[0]?.text).toBe(
      "Run again at 1.9/s, sized from the 7.9 req/s this run proved: the default 20/s was more than this service's rate limit lets through.",
    );
    const limited = scenarioFindings(
      loadScenario({ not_tested: 'throughput: the service’s rate limit refused 2 of its calls' }),
    );
    expect(limited.findings[0]?.text).toBe('Not tested: throughput: the service’s rate limit refused 2 of its calls.');
  });

  it('keeps the figures no finding says, by their k6 names', () => {
    expect(said({ token_fetches: 3, some_new_metric: 5, 'other p95_ms': 1.5 }).rest).toEqual([
      ['some_new_metric', 5],
      ['other p95_ms', 1.5],
    ]);
  });
});

describe.each(['pass', 'fail'] as const)('findings in report-%s', (name) => {
  const report = loadFixture(name);
  const md = renderMarkdown(report);
  const html = renderHtml(report);

  it('says the token-cost finding as a sentence instead of dumping the raw metric names', () => {
    const p95 = name === 'fail' ? '1,125 ms' : '148 ms';
    const sentence = `A logical business call took p95 ${p95} with a token fetched per call, against 8.1 ms with a cached token`;
    expect(md).toContain(sentence);
    expect(html).toContain(sentence);
    expect(md).not.toContain('Scenario figures');
    expect(md).not.toMatch(/tls_seen_suite_TLS_AES_128_GCM_SHA256: 76/);
    expect(html).not.toContain('<th scope="row">logical_call_duration_cached p95_ms</th>');
  });

  it('draws cached against per call as a bar chart, p50 and p95 for each, values written on the bars', () => {
    const svg = /<svg [^>]*id="chart-token-cost"[\s\S]*?<\/svg>/.exec(html)?.[0] ?? '';
    expect(svg.match(/<rect /g)).toHaveLength(4);
    expect(svg).toContain('<title>cached token p95: 8.1 ms</title>');
    expect(svg).toContain('>8.1 ms</text>');
  });
});
