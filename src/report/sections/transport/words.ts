// The one sentence every format says about how the checks' requests travelled (../../model.ts,
// TransportFacts): which HTTP versions the service offers, which one the checks spoke, and
// whether answers came compressed. Informational: it names what the run exercised, judges nothing.

import type { Report, TransportFacts } from '../../model.js';

const VERSION_NAMES: Record<string, string> = { h2: 'HTTP/2', 'http/1.1': 'HTTP/1.1' };
const versionName = (v: string) => VERSION_NAMES[v] ?? v;

/** An HTTP/1.1 server that does no ALPN at all is common, and fine: only HTTP/2 needs ALPN (RFC 9113 §3.2). */
function offeredText(offered: readonly string[]): string {
  const h2 = offered.includes('h2');
  const h1 = offered.includes('http/1.1');
  if (h2 && h1) return 'HTTP/2 and HTTP/1.1 offered by ALPN';
  if (h2) return 'HTTP/2 only (HTTP/1.1 refused by ALPN)';
  return h1 ? 'HTTP/1.1 only (no HTTP/2 by ALPN)' : 'neither HTTP/2 nor HTTP/1.1 accepted by ALPN';
}

const and = (items: string[]) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;

/** e.g. "HTTP/2 and HTTP/1.1 offered by ALPN, the checks spoke HTTP/2; answers gzip-compressed (120 of 135)". */
export function transportText(t: TransportFacts): string {
  const http: string[] = [];
  if (t.http_offered) http.push(offeredText(t.http_offered));
  const used = Object.keys(t.http_used);
  if (used.length) http.push(`the checks spoke ${and(used.map(versionName))}`);
  const total = Object.values(t.content_codings).reduce((a, b) => a + b, 0);
  const coded = Object.entries(t.content_codings).filter(([c]) => c !== 'identity');
  const codedCount = coded.reduce((a, [, n]) => a + n, 0);
  const codings =
    total === 0
      ? undefined
      : codedCount === 0
        ? 'answers not compressed'
        : `answers ${coded.map(([c]) => c).join('/')}-compressed (${codedCount} of ${total})`;
  return [http.join(', '), codings].filter((p) => p).join('; ');
}

/** The sentence for a report, or undefined when the run has nothing to say about its transport. */
export function reportTransport(report: Pick<Report, 'target'>): string | undefined {
  const text = report.target.transport ? transportText(report.target.transport) : '';
  return text === '' ? undefined : text;
}
