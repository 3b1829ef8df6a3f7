import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { cameBack } from '../src/runner/expect.js';
import { describeAllowance, refusalIsEarly } from '../src/time/expiry-edges.js';
import { isJsonObject } from '../src/spec/json-object.js';

export const check: Check = {
  id: 'token.valid-until-expiry',
  title: 'A token still works just before its expires_at',
  spec: '3',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    "When the token expires within `--expiry-wait`: shortly before `expires_at` (less a second for its rounding and the clock skew measured from the service's Date headers and health timestamp, refined with timed health checks) GET/POST /tokens/validate with the token answers 200 `valid: true` (§3: valid until current time reaches expires_at); a 401 is held against the service only when the request's whole window lay certainly before the expiry.",
  async run({ http, session }) {
    const obs = await session.expiry();
    if (obs.kind !== 'observed') return skip(obs.reason);
    const ex = obs.beforeExpiry;
    if (!ex)
      return skip(
        `the token had too little life left to probe before expires_at; token.expired-* still judged its expiry`,
      );
    const evidence = [
      http.evidence(
        ex,
        `token ${obs.token.fingerprint}, answered ${(obs.expiresAtS - ex.receivedAt / 1000).toFixed(1)} s before expires_at`,
      ),
    ];
    const body = ex.json;
    const refused = ex.status !== 200 || !isJsonObject(body) || body['valid'] !== true;
    // Only a 401 can be an honest expiry; it counts against the service when it certainly came early.
    const allowance = session.allowance();
    if (refused && ex.status === 401 && !refusalIsEarly(ex, obs.expiresAtS, allowance)) {
      return skip(
        `the probe's answer came within the uncertainty of expires_at ${obs.expiresAtS} (${describeAllowance(allowance)}): nothing to judge`,
        evidence,
      );
    }
    if (refused) {
      return fail(
        `${cameBack(http, ex)} before expires_at ${obs.expiresAtS}; §3 wants the token valid until then`,
        evidence,
      );
    }
    return pass(`valid just before expires_at`, evidence);
  },
};
