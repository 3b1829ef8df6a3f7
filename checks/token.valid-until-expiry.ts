import { fail, notTested, pass, skip, type Check } from '../src/runner/check.js';
import { cameBack } from '../src/runner/expect.js';
import { describeAllowance, refusalUnjudged } from '../src/time/expiry-edges.js';
import { isJsonObject } from '../src/spec/json-object.js';
import type { Exchange } from '../src/http/exchange.js';
import type { TooLate } from '../src/runner/token-session.js';

export const check: Check = {
  id: 'token.valid-until-expiry',
  title: 'A token still works just before its expires_at',
  spec: '3',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    "When the token expires within `--expiry-wait`: shortly before `expires_at` (less a second for its rounding and the clock skew measured from the service's Date headers and health timestamp, refined with timed health checks) GET/POST /tokens/validate with the token answers 200 `valid: true` (§3: valid until current time reaches expires_at); a 401 is held against the service only when the request's whole window lay certainly before the expiry. A token with too little life left when the probe's turn comes (a short lifetime, the checks queued behind a low rate limit, a loaded machine) is probed again on the token issued after it expired, when that one expires within `--expiry-wait` too; else not tested, saying how much it had left. So is a probe whose 401 came back too late to judge (a busy machine answered it late): the next token's probe is sent earlier by twice that lateness (at most 4 s), and a pass then says how far before `expires_at` it was answered.",
  async run({ http, session }) {
    const obs = await session.expiry();
    if (obs.kind !== 'observed') return skip(obs.reason);
    const ex = obs.beforeExpiry;
    // The run's circumstances (its turn came late), not its design, kept this out: not tested, with why and how.
    if (!ex) return notTested(tooLateToProbe(obs.token.fingerprint, obs.expiresAtS, obs.tooLate));
    // The token probed: the one taken up, or the next one when that had too little life left.
    const { token, expiresAtS } = obs.probedNext ?? obs;
    const instead = obs.probedNext
      ? ` (token ${token.fingerprint}, issued after ${obs.token.fingerprint} expired: ${whyNext(obs.token.fingerprint, obs.expiresAtS, obs.probedNext.unjudged, obs.tooLate)})`
      : '';
    // How long before expires_at the answer came, on our clock: said in the evidence, and in a pass
    // from a probe moved earlier (the first came back too late to judge).
    const answeredBefore = `${(expiresAtS - ex.receivedAt / 1000).toFixed(1)} s`;
    const evidence = [http.evidence(ex, `token ${token.fingerprint}, answered ${answeredBefore} before expires_at`)];
    const body = ex.json;
    const refused = ex.status !== 200 || !isJsonObject(body) || body['valid'] !== true;
    // Only a 401 can be an honest expiry; it counts against the service when it certainly came early.
    const allowance = session.allowance();
    if (refused && refusalUnjudged(ex, expiresAtS, allowance)) {
      return notTested(
        `the probe's answer came within the uncertainty of expires_at ${expiresAtS}${instead} (${describeAllowance(allowance)}), so nothing to judge; to test it, run it again alone (--only token.valid-until-expiry) on a less busy machine, so the probe's request is answered well before the edge`,
        evidence,
      );
    }
    if (refused) {
      return fail(
        `${cameBack(http, ex)} before expires_at ${expiresAtS}${instead}; §3 wants the token valid until then`,
        evidence,
      );
    }
    return pass(`valid ${obs.probedNext?.unjudged ? answeredBefore : 'just'} before expires_at${instead}`, evidence);
  },
};

const HOW_TO_TEST =
  'to test it, run it alone (--only token.valid-until-expiry), give the sandbox a longer token lifetime (the emulator: serve --token-lifetime S), or a higher rate limit';

/** Why the next token was probed: the first one's probe came back too late to judge, or was never sent. */
function whyNext(
  fingerprint: string,
  expiresAtS: number,
  unjudged: Exchange | undefined,
  tooLate: TooLate | undefined,
) {
  if (!unjudged) return tooLateToProbe(fingerprint, expiresAtS, tooLate, false);
  const tookS = ((unjudged.receivedAt - unjudged.sentAt) / 1000).toFixed(1);
  return `its own probe came back 401 within the uncertainty of expires_at ${expiresAtS} (answered ${tookS} s after it was sent), too late to judge`;
}

/** Why the probe before expires_at was not sent: the life the token had left when its turn came, and what held it up. */
function tooLateToProbe(fingerprint: string, expiresAtS: number, tooLate: TooLate | undefined, howTo = true): string {
  const left = (ms: number) => (ms > 0 ? `${(ms / 1000).toFixed(1)} s` : 'none');
  const life =
    tooLate === undefined
      ? 'too little certain life left when its turn came'
      : `${tooLate.startLeftMs > 0 ? `${left(tooLate.startLeftMs)} of` : 'no'} certain life left when the wait for its expiry took it up and ${left(tooLate.leftMs)} when the probe's turn came`;
  const queued = tooLate?.limitQueued
    ? ": the service's rate limit had queued the checks' requests, one at a time, ahead of it"
    : '';
  const said = `token ${fingerprint} had ${life}, too little to probe it before expires_at ${expiresAtS}${queued}`;
  return howTo ? `${said}; token.expired-* still judged its expiry; ${HOW_TO_TEST}` : said;
}
