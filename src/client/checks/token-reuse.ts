// §5.5: a client may cache its token until expires_at, or fetch one before every call "at the cost
// of latency". Allowed either way, so fetching while the last token is still valid is a `should`:
// reported as a warn with what it cost, never a failure.

import { CLOCK_GRACE_MS, evidenceOf, isTokenFetch, judged, type ClientCheck } from './types.js';

export const check: ClientCheck = {
  id: 'client.token-reuse',
  title: 'The token is reused until expires_at instead of fetched again',
  spec: '5.5',
  level: 'should',
  description:
    'no token fetch while the last token is still valid (allowed by §5.5, so a warn with its measured latency cost)',
  judge(record) {
    const fetches = record.requests.filter((r) => isTokenFetch(r) && r.issued !== undefined);
    if (fetches.length === 0) return judged('skip', 'no token was issued to judge reuse by');
    const early = fetches.filter((r, i) => i > 0 && r.atMs < fetches[i - 1]!.issued!.expiresMs - CLOCK_GRACE_MS);
    if (early.length === 0)
      return judged('pass', `${fetches.length} token fetch(es), none while the previous token was still valid`);
    // The latency a fetch adds, as the client paid it: from the token request to the client's next request.
    const sorted = [...record.requests].sort((a, b) => a.atMs - b.atMs);
    const delays = early.flatMap((r) => {
      const next = sorted.find((n) => n.atMs >= r.answeredMs && n !== r);
      return next ? [next.atMs - r.atMs] : [];
    });
    const costMs = delays.reduce((sum, d) => sum + d, 0);
    const perCall = delays.length === 0 ? 0 : costMs / delays.length;
    return judged(
      'warn',
      `${early.length} of ${fetches.length} token fetches came while the previous token was still valid, ` +
        `each delaying the client's next call by ${perCall.toFixed(1)} ms on average (${costMs.toFixed(0)} ms in all, on loopback); §5.5 allows it at that cost`,
      early.map((r) => evidenceOf(r, 'the previous token had not expired')),
    );
  },
};
