import { fail, pass, type Check } from '../src/runner/check.js';
import { cameBack } from '../src/runner/expect.js';
import type { IssuedToken, TokenExchange } from '../src/http/exchange.js';

// Eight is enough to expose a check-then-store race in the service, and few enough to stay far
// below any sane burst limit.
const CONCURRENT = 8;

export const check: Check = {
  id: 'token.concurrent-issue-one-token',
  title: 'Concurrent POST /tokens calls return one token',
  spec: '4.1',
  level: 'must',
  needsAcceptedCredentials: true,
  description: `Sends ${CONCURRENT} POST /tokens at once, before any other check has fetched a token, and wants one token value back (§4.1 rule 1: the same token until it expires).`,
  phase: 'first',
  async run({ http, session, expect }) {
    // Open the connections first (the health check needs no credentials): otherwise the token
    // requests arrive spread out by their TLS handshakes and a short race in the service slips by.
    await Promise.all(Array.from({ length: CONCURRENT }, () => http.healthCheck().catch(() => undefined)));
    const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => http.issueToken()));
    const issued = answers.find((a) => a.issued);
    if (issued) session.seed(issued);
    const refused = answers.filter((a) => !a.issued);
    if (refused.length > 0) {
      return fail(
        `${refused.length} of ${CONCURRENT} concurrent calls got no token: ${cameBack(http, refused[0]!)}`,
        refused.map((a) => http.evidence(a)),
      );
    }
    const distinct = new Map<string, number>();
    for (const a of answers) distinct.set(a.issued!.fingerprint, (distinct.get(a.issued!.fingerprint) ?? 0) + 1);
    const evidence = answers.map((a) => http.evidence(a, `token ${a.issued!.fingerprint}`));
    if (distinct.size > 1 && !eachAfterExpiry(answers as Issued[], expect.clockToleranceS * 1000)) {
      const counts = [...distinct].map(([fp, n]) => `${fp} ×${n}`).join(', ');
      return fail(
        `${CONCURRENT} concurrent calls returned ${distinct.size} different tokens (${counts}); §4.1 wants the same token until it expires`,
        evidence,
      );
    }
    if (distinct.size > 1)
      return pass(
        `${CONCURRENT} calls, one token at a time: the rate limit spread them over ${distinct.size} tokens' lives, each new one asked for after the one before had expired`,
        evidence,
      );
    return pass(`${CONCURRENT} concurrent calls, one token`, evidence.slice(0, 2));
  },
};

type Issued = TokenExchange & { issued: IssuedToken };

/**
 * Whether every change of token came after the token before it had expired: §4.1's rule kept, not a
 * race. A limit of 1 req/s paces the eight calls one at a time (limit-pacer.ts), and they can
 * outlast a short-lived token. Two tokens from overlapping calls, or one asked for while the other
 * was live by more than the clock tolerance (the service's clock may run ahead), are still the race.
 */
function eachAfterExpiry(answers: Issued[], toleranceMs: number): boolean {
  return answers.every((a) =>
    answers.every((b) => {
      if (a.issued.fingerprint === b.issued.fingerprint) return true;
      // b before a: the pair is judged the other way round. Overlapping: the race itself.
      if (b.sentAt < a.receivedAt) return a.sentAt >= b.receivedAt;
      const expiresAt = a.issued.expiresAt;
      return typeof expiresAt === 'number' && b.sentAt >= expiresAt * 1000 - toleranceMs;
    }),
  );
}
