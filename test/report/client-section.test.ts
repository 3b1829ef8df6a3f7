// The client section in every format: the same facts in report.md, report.html and junit.xml,
// report.json keeping the contract's key order, and quoted text (a command line can hold anything)
// escaped, never markup.

import { describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import type { ClientSection } from '../../src/report/sections/client/model.js';
import { renderHtml, renderJson, renderJunit, renderMarkdown } from '../../src/report/index.js';
import { loadFixture } from './helpers.js';

const stoppedAtLimit = {
  exit_code: null,
  signal: 'SIGTERM',
  stopped: 'time-limit',
  stall_after_ms: 5_000,
  duration_ms: 30_000,
  requests: 3,
  token_fetches: 1,
  business_calls: 2,
  connections: 1,
  tls_offered: { versions: ['TLSv1.3'], suites: [] },
  exchanges: [],
};

const client: ClientSection = {
  command: 'node my-client.js --name "<b>x</b>|y"',
  time_limit_s: 30,
  runs: [
    {
      scenario: 'rate-limit-storm',
      description: '2 s of 429 with Retry-After',
      exit_code: 0,
      signal: null,
      stopped: null,
      still_working: null,
      quiet_ms: null,
      stall_after_ms: 9_000,
      duration_ms: 5_200,
      requests: 17,
      token_fetches: 1,
      business_calls: 16,
      connections: 2,
      tls_offered: { versions: ['TLSv1.3'], suites: ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384'] },
      exchanges: [
        {
          t_ms: 563,
          method: 'POST',
          path: '/v1/evaluation',
          status: 429,
          duration_ms: 0,
          authorization: 'Bearer tk_0123abcd',
          headers: { authorization: 'Bearer tk_0123abcd' },
          body: '{"request":number}',
          retry_after: '2',
        },
      ],
    },
    {
      ...stoppedAtLimit,
      scenario: 'steady',
      description: 'nothing goes wrong',
      still_working: false,
      quiet_ms: 27_000,
    },
    {
      ...stoppedAtLimit,
      scenario: 'slow-business',
      description: 'slow answers',
      still_working: true,
      quiet_ms: 180,
      stall_after_ms: 6_500,
    },
  ],
};

const report = { ...loadFixture('pass'), client };

describe('the client section', () => {
  it('report.md: the command and one row per run, how it ended', () => {
    const md = renderMarkdown(report);
    expect(md).toContain('### Client');
    expect(md).toMatch(/\| `rate-limit-storm` \| exit 0 after 5\.2 s \| 17 \| 1 \| 16 \| 2 \| TLSv1\.3; 2 suites \|/);
    // Stopped at the limit: stalled, or still working, which is no fault.
    expect(md).toMatch(
      /\| `steady` \| stopped at the time limit after 30\.0 s, stalled \(no request in its last 27\.0 s\) \|/,
    );
    expect(md).toMatch(
      /\| `slow-business` \| stopped at the time limit after 30\.0 s while still working \(last request 0\.2 s before\) \|/,
    );
    // In a code span, where GitHub shows markup as text.
    expect(md).toContain('Command `node my-client.js --name "<b>x</b>|y"` · time limit 30 s per scenario');
  });

  it('report.html: a section with the runs and the request log, text escaped', () => {
    const page = renderHtml(report);
    expect(page).toContain('<section id="client"');
    expect(page).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(page).not.toContain('<b>x</b>');
    expect(page).toContain(
      '<td>stopped at the time limit after 30.0 s while still working (last request 0.2 s before)</td>',
    );
    expect(page).toContain(
      'POST /v1/evaluation → 429 (0 ms) · Bearer tk_0123abcd · body {&quot;request&quot;:number} · Retry-After: 2',
    );
  });

  it('junit.xml: the runs as properties of the conformance suite', () => {
    const xml = new XMLParser({ ignoreAttributes: false }).parse(renderJunit(report)) as {
      testsuites: {
        testsuite:
          | Array<{ properties: { property: Array<Record<string, string>> } }>
          | { properties: { property: Array<Record<string, string>> } };
      };
    };
    const suites = Array.isArray(xml.testsuites.testsuite) ? xml.testsuites.testsuite : [xml.testsuites.testsuite];
    const props = Object.fromEntries(suites[0]!.properties.property.map((p) => [p['@_name'], p['@_value']]));
    expect(props['client.command']).toBe(client.command);
    expect(props['client.run.steady']).toMatch(
      /^ended: stopped at the time limit after 30\.0 s, stalled \(no request in its last 27\.0 s\); requests: 3;/,
    );
    expect(props['client.run.slow-business']).toMatch(
      /^ended: stopped at the time limit after 30\.0 s while still working/,
    );
  });

  it('report.json: `client` between rate_limit and untested, absent when no client ran', () => {
    const keys = Object.keys(JSON.parse(renderJson(report)) as object);
    expect(keys.indexOf('client')).toBe(keys.indexOf('rate_limit') + 1);
    expect(keys.indexOf('untested')).toBe(keys.indexOf('client') + 1);
    expect(Object.keys(JSON.parse(renderJson(loadFixture('pass'))) as object)).not.toContain('client');
  });
});
