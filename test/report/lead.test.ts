// The reports lead with what failed, why and what to do, one line each, right under the verdict.

import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { leadItems } from '../../src/report/sections/lead/words.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { loadFixture } from './helpers.js';

describe('leadItems', () => {
  it('names every broken must check, crossed threshold and untested stage of the failing fixture, and nothing of the passing one', () => {
    const items = leadItems(loadFixture('fail'));
    expect(items.map((i) => i.what)).toEqual([
      'token.bad-secret-401: Invalid client credentials get 401 {"error":"unauthorized"}',
      'business.bearer-required: Business endpoints reject a call without a bearer token',
      'tls.cipher-suites: Only the three TLS 1.3 suites of §5.8 are offered',
      'load scenario token-per-call: threshold http_req_duration p(95)<500 crossed',
      'rate limit was not tested',
    ]);
    expect(leadItems(loadFixture('pass'))).toEqual([]);
  });

  it('says why with what came back or was measured, and what to do', () => {
    const [secret, , cipher, threshold, rateLimit] = leadItems(loadFixture('fail'));
    expect(secret?.why).toContain('returned 403');
    expect(secret?.todo).toBe(
      'fix the service so that invalid client credentials get 401 {"error":"unauthorized"} (§4.1.2)',
    );
    expect(cipher?.todo).toContain('--only tls.cipher-suites');
    const titled = (title: string) =>
      leadItems({
        ...loadFixture('fail'),
        checks: [{ ...loadFixture('fail').checks[7]!, title }],
        load: null,
        untested: [],
      })[0]?.todo;
    expect(titled('A wrong client_secret gets 401')).toBe(
      'fix the service so that a wrong client_secret gets 401 (§4.1.2)',
    );
    expect(titled('TLS 1.2 is refused')).toBe('fix the service so that TLS 1.2 is refused (§4.1.2)');
    expect(threshold?.why).toBe('p95 was 613 ms');
    expect(rateLimit?.todo).toContain('client_id and client_secret');
  });
});

describe('the lead in report.md and report.html', () => {
  const report = loadFixture('fail');

  it('report.md: "What failed" comes right after the summary line, before every other section, one line per item', () => {
    const md = renderMarkdown(report);
    const sections = [...md.matchAll(/^### (.+)$/gm)].map((m) => m[1]);
    expect(sections[0]).toBe('What failed');
    const lines = md.split('\n');
    const at = lines.indexOf('### What failed');
    // The summary line, then only what bounds it (the checks outside the verdict, the transport).
    const counts = lines.findIndex((l) => /^\*\*12 checks:\*\*/.test(l));
    expect(counts).toBeGreaterThan(-1);
    expect(lines.slice(counts + 1, at).filter((l) => l !== '')).toEqual([
      '1 check skipped, so outside this verdict (each says why): token.expired-401',
    ]);
    const items = lines.slice(at + 2).filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith('- ')));
    expect(items).toHaveLength(leadItems(report).length);
    for (const line of items) expect(line).toMatch(/^- ❌ \*\*.+\*\*: .+\. \*\*Do:\*\* .+\.$/);
    // The 12-row checks table is the rest, after what broke.
    expect(md.indexOf('| Status')).toBeGreaterThan(md.indexOf('### Failures'));
  });

  it('report.html: the lead follows the verdict, before the checks, linking each failed check to its row', () => {
    const html = renderHtml(report);
    const lead = /<section id="lead"[\s\S]*?<\/section>/.exec(html)?.[0] ?? '';
    expect(html.indexOf('id="lead"')).toBeGreaterThan(html.indexOf('role="status"'));
    expect(html.indexOf('id="lead"')).toBeLessThan(html.indexOf('id="checks"'));
    expect(lead.match(/<li>/g)).toHaveLength(leadItems(report).length);
    expect(lead.match(/<strong>Do:<\/strong>/g)).toHaveLength(leadItems(report).length);
    const targets = [...lead.matchAll(/href="#([^"]+)"/g)].map((m) => m[1]);
    expect(targets).toEqual([
      'check-token.bad-secret-401',
      'check-business.bearer-required',
      'check-tls.cipher-suites',
    ]);
    for (const id of targets) expect(html).toMatch(new RegExp(`<tr class="row-(fail|error)" id="${id}">`));
  });

  it('is absent from a passing report', () => {
    expect(renderMarkdown(loadFixture('pass'))).not.toContain('What failed');
    expect(renderHtml(loadFixture('pass'))).not.toContain('id="lead"');
  });
});
