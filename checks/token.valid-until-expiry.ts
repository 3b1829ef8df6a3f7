import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { cameBack, isJsonObject } from '../src/runner/expect.js';

export const check: Check = {
  id: 'token.valid-until-expiry',
  title: 'A token still works just before its expires_at',
  spec: '3',
  level: 'must',
  description: 'When the lifetime fits `--expiry-wait`: shortly before `expires_at` (minus the clock tolerance) GET/POST /tokens/validate with the token answers 200 `valid: true` (§3: valid until current time reaches expires_at).',
  async run({ http, session }) {
    const obs = await session.expiry();
    if (obs.kind !== 'observed') return skip(obs.reason);
    const ex = obs.beforeExpiry;
    if (!ex) return skip(`the token had too little life left to probe before expires_at; token.expired-* still judged its expiry`);
    const evidence = [http.evidence(ex, `token ${obs.token.fingerprint}, ${(obs.expiresAtS - Date.now() / 1000).toFixed(1)} s before expires_at`)];
    const body = ex.json;
    if (ex.status !== 200 || !isJsonObject(body) || body['valid'] !== true) {
      return fail(`${cameBack(http, ex)} before expires_at ${obs.expiresAtS}; §3 wants the token valid until then`, evidence);
    }
    return pass(`valid just before expires_at`, evidence);
  },
};
