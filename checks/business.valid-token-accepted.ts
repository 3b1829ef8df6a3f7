import { fail, notTested, pass, skip, type Check } from '../src/runner/check.js';
import { acceptedCalls } from '../src/runner/production-calls.js';
import { refusesToken } from '../src/spec/limit-statuses.js';
import { retryInFlight, withLiveToken } from '../src/runner/live-token.js';

/** Sequential calls per endpoint after the verdict's, for the latency figure. */
const LATENCY_ROUNDS = 2;

export const check: Check = {
  id: 'business.valid-token-accepted',
  title: 'Business endpoints accept a valid token',
  spec: '4.4, 5.3, 9',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    "Each business endpoint under `/v1/` called with a fresh token and the configured method and payload is not refused for the token (not 401/403) and exists (not 404/405). A 4xx about the payload passes with a note: §4.4 leaves payloads to the user (`business:` in the config). Two more calls each, one at a time, give the run history its business latency (the quickest of the six answers). A 401 that reached the service within the uncertainty of the token's `expires_at` is no finding: the calls are made again with its successor, except on production, where the check says so instead.",
  // Alone, after the concurrent checks and before the rate-limit burst: its latency figure is then
  // the service's, not the queue of sixteen other checks in this process.
  phase: 'last',
  async run(ctx) {
    const { http, session } = ctx;
    // Production guard: there, only the endpoints opted in, with production's own payload, and no
    // latency rounds (each call may be a real evaluation or transaction).
    const { calls, notTested: leftOut, onProduction } = acceptedCalls(ctx);
    if (calls.length === 0) return skip(leftOut ?? 'no business endpoint to call');
    // A short token may expire between the session handing it out and the service reading it; on
    // production no call is sent twice (each may be a real evaluation): an answer at the edge is said.
    const { token, answers, expiredInFlight } = await withLiveToken(
      session,
      (t) => Promise.all(calls.map(({ name, call }) => http.business(name, call, t.token))),
      { again: !onProduction },
    );
    const evidence = answers.map((ex) => http.evidence(ex, `token ${token.fingerprint}`));
    if (expiredInFlight)
      return notTested(`${expiredInFlight}; ${retryInFlight('business.valid-token-accepted')}`, evidence);
    const problems: string[] = [];
    const notes: string[] = leftOut ? [leftOut] : [];
    for (const ex of answers) {
      if (refusesToken(ex.status))
        problems.push(`${ex.request} refused a fresh token with ${ex.status} ${http.quote(ex, 60)}`);
      else if (ex.status === 404 || ex.status === 405)
        problems.push(
          `${ex.request} answered ${ex.status}: the endpoint is not there (§4.4, §9: /v1/<endpoint>; check business.<name>.method)`,
        );
      else if (ex.status >= 500)
        problems.push(`${ex.request} answered ${ex.status} ${http.quote(ex, 60)} with a valid token`);
      else if (ex.status >= 400)
        notes.push(
          `${ex.request} accepted the token but refused the payload with ${ex.status} (set business.${ex.request.split('/v1/')[1]}.body in the config)`,
        );
    }
    if (problems.length) return fail(problems.join('; '), evidence);
    // For the run history: the quickest of six answers, two of them the verdict's, four sent one at
    // a time. Another process on a busy machine only ever adds time to an answer, so the quickest
    // is the figure it moves least (the median of six still cried wolf in 1 of 27 runs, bench 7),
    // while a slower service slows every answer, the quickest too.
    const timed = [...answers];
    for (let round = 0; round < (onProduction ? 0 : LATENCY_ROUNDS); round++)
      for (const { name, call } of calls) timed.push(await http.business(name, call, token.token));
    const facts = { latency_ms: Math.round(Math.min(...timed.map((a) => a.durationMs)) * 10) / 10 };
    return {
      ...pass(
        notes.length
          ? `token accepted; ${notes.join('; ')}`
          : `token accepted (${answers.map((a) => a.status).join(', ')})`,
        evidence,
      ),
      facts,
    };
  },
};
