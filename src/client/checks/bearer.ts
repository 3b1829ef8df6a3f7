// §5.3, §4.4: every business call carries `Authorization: Bearer <token>` with a token the service
// issued. One sent past its expires_at only costs a wasted round trip (a 401, then a new token): warn.

import { CLOCK_GRACE_MS, at, evidenceOf, isBusiness, judged, type ClientCheck } from './types.js';

export const check: ClientCheck = {
  id: 'client.bearer',
  title: 'Every business call carries Bearer and a token the service issued',
  spec: '5.3',
  level: 'must',
  description:
    'each `/v1/` call sends `Authorization: Bearer <token>` with an issued token; one past its `expires_at` is a warn (a wasted round trip)',
  judge(record) {
    const calls = record.requests.filter(isBusiness);
    if (calls.length === 0) return judged('skip', 'the client made no business call (/v1/…) to judge');
    const wrong = calls.filter((r) => r.bearer.scheme.toLowerCase() !== 'bearer' || r.bearer.expiresMs === undefined);
    if (wrong.length > 0) {
      const describe = (r: (typeof calls)[number]) =>
        r.bearer.scheme === ''
          ? 'no Authorization header'
          : r.bearer.scheme.toLowerCase() !== 'bearer'
            ? `Authorization scheme ${r.bearer.scheme}`
            : `Bearer ${r.bearer.token ?? ''} which the service never issued`;
      return judged(
        'fail',
        `${wrong.length} of ${calls.length} business calls sent ${describe(wrong[0]!)}; §5.3 wants Authorization: Bearer <the token from POST /tokens>`,
        wrong.map((r) => evidenceOf(r, describe(r))),
      );
    }
    const stale = calls.filter((r) => r.atMs >= r.bearer.expiresMs!);
    // One expired token arriving just after expiry is a clock race any client can lose; a habit shows
    // as an expired token sent well after expiry, or as more than one.
    if (stale.length > 1 || stale.some((r) => r.atMs >= r.bearer.expiresMs! + CLOCK_GRACE_MS)) {
      return judged(
        'warn',
        `${stale.length} of ${calls.length} business calls sent a token past its expires_at, each a wasted round trip (expires_at says when to fetch a new one)`,
        stale.map((r) => evidenceOf(r, `${r.bearer.token ?? ''} expired at ${at(r.bearer.expiresMs!)}`)),
      );
    }
    return judged('pass', `${calls.length} business calls, each with Bearer and a live issued token`, [
      evidenceOf(calls[0]!, `Authorization: Bearer ${calls[0]!.bearer.token ?? ''}`),
    ]);
  },
};
