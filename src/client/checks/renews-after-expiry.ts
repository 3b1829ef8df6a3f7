// §3, §7: there are no refresh tokens; once a token expires (or a call gets 401 for it) the client
// fetches a new one with its credentials and its calls go through again. One that never recovers fails.

import { at, evidenceOf, isBusiness, isTokenFetch, judged, type ClientCheck } from './types.js';

const ok = (status: number) => status >= 200 && status < 300;

export const check: ClientCheck = {
  id: 'client.renews-after-expiry',
  title: 'After its token expires the client fetches a new one and its calls complete',
  spec: '3, §7',
  level: 'must',
  description:
    'after the first token expires, a new token is fetched and a business call succeeds with it (run with `short-token-lifetime`)',
  judge(record) {
    const fetch = record.requests.find((r) => r.issued !== undefined);
    const first = fetch?.issued;
    if (fetch === undefined || first === undefined) return judged('skip', 'no token was issued, so none could expire');
    const after = record.requests.filter((r) => r.atMs >= first.expiresMs);
    const calls = after.filter(isBusiness);
    if (calls.length === 0) {
      const lifeS = Math.round((first.expiresMs - fetch.atMs) / 1000);
      return judged(
        'skip',
        `no business call after the first token expired (it lived ${lifeS} s; the short-token-lifetime scenario makes tokens expire mid-run)`,
      );
    }
    const renewed = calls.find((r) => ok(r.status) && r.bearer.token !== undefined && r.bearer.token !== first.token);
    if (renewed)
      return judged(
        'pass',
        `token ${first.token} expired at ${at(first.expiresMs)}; a new token was fetched and a call succeeded at ${at(renewed.atMs)}`,
        [evidenceOf(renewed, `Bearer ${renewed.bearer.token ?? ''}`)],
      );
    const refetches = after.filter((r) => isTokenFetch(r)).length;
    return judged(
      'fail',
      `token ${first.token} expired at ${at(first.expiresMs)}; the client made ${calls.length} business calls after that and none succeeded with a new token ` +
        `(${refetches} token fetch(es)); §7: on 401 for an expired token, request a new one`,
      calls.map((r) => evidenceOf(r, `Bearer ${r.bearer.token ?? '(none)'}`)),
    );
  },
};
