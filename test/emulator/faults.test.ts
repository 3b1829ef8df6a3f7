// The fault catalog: each fault breaks exactly the behaviours it names. Every probe runs against
// the conformant emulator (all must pass) and against each fault; the set of failing probes must
// equal the fault's footprint below. Probes that cannot be judged under a fault (n/a) are allowed
// only where the fault takes away what they need, e.g. a token.

import { describe, expect, it } from 'vitest';
import { FAULTS, isFaultName, type FaultName } from '../../src/emulator/faults/index.js';
import { PROBE_NAMES, runProbes, type ProbeName } from './support/probes.js';

/** Every 401 a conformant client meets; forbidden-instead-of-unauthorized turns them all to 403. */
const ALL_401: ProbeName[] = [
  'token.rejects-bad-secret',
  'token.refusal-carries-nothing',
  'token.rejects-unknown-client',
  'validate.rejects-missing',
  'validate.rejects-unknown',
  'validate.rejects-forged',
  'validate.rejects-expired',
  'business.rejects-missing',
  'business.rejects-unknown',
  'business.rejects-expired',
  'env.isolation',
];

// A Record over FaultName: adding a fault without a footprint does not compile.
const FOOTPRINT: Record<FaultName, ProbeName[]> = {
  'token-rotates': ['token.same-before-expiry', 'token.concurrent-first'],
  'expired-token-accepted': ['validate.rejects-expired', 'business.rejects-expired'],
  'forbidden-instead-of-unauthorized': ALL_401,
  'wrong-error-body': ['errors.401-body'],
  'wrong-token-type': ['token.type'],
  'expires-at-ms': ['token.expires-at'],
  'wrong-lifetime': ['token.expires-at'],
  'tls12-accepted': ['tls.rejects-tls12'],
  'ccm-suite-accepted': ['tls.rejects-ccm'],
  'chacha-refused': ['tls.suites'],
  'no-tls13': ['tls.suites', 'tls.rejects-tls12'],
  'unavailable-instead-of-429': ['ratelimit.429'],
  'health-check-json': ['health.alive'],
  'validate-200-when-expired': ['validate.rejects-expired'],
  'business-open-without-token': ['business.rejects-missing', 'business.rejects-unknown', 'business.rejects-expired'],
  'shared-credentials': ['env.isolation'],
  'concurrent-mint': ['token.concurrent-first'],
  'expires-early': ['token.works-until-expiry'],
  'secret-not-checked': ['token.rejects-bad-secret', 'token.refusal-carries-nothing'],
  'refusal-carries-token': ['token.refusal-carries-nothing', 'errors.401-body'],
  'lenient-token-body': ['token.rejects-bad-body'],
  // Every POST /tokens without Authorization is refused, malformed ones included.
  'tokens-require-authorization': ['token.issue', 'token.rejects-bad-body'],
  'health-check-needs-auth': ['health.alive'],
  'health-check-no-timestamp': ['health.timestamp'],
  'validate-wrong-shape': ['validate.valid'],
  'business-accepts-any-token': ['business.rejects-unknown', 'business.rejects-expired'],
  'plain-http-accepted': ['tls.rejects-plain-http'],
  'expired-token-reissued': ['token.new-after-expiry'],
  'sliding-expiry': ['token.expires-at-stable'],
  'rate-limit-off': ['ratelimit.429'],
  'error-body-not-json': ['errors.401-body', 'ratelimit.body'],
  'expires-at-string': ['token.expires-at'],
  // Waiting out Retry-After does not let the client back in.
  'rate-limit-never-lifts': ['ratelimit.lifts'],
  'malformed-body-token': ['token.bad-body-carries-nothing'],
  // The echo is a string field, so the body is no longer exactly {"error": …}.
  'reflects-request': ['errors.401-body', 'errors.no-secret-echo'],
  'token-in-headers': ['token.refusal-carries-nothing'],
  'secret-in-error': ['errors.401-body', 'errors.no-secret-echo'],
  'accepts-same-length-token': ['validate.rejects-forged'],
  'token-prefix-compare': ['validate.rejects-forged'],
  // Its tokens are JWTs only with --profile jwt; on opaque tokens it changes nothing.
  'jwt-signature-not-checked': [],
  'refusal-token-renamed': ['token.refusal-carries-nothing', 'errors.401-body'],
  'secret-hex-in-error': ['errors.401-body', 'errors.no-secret-echo'],
  'refusal-token-split': ['token.refusal-carries-nothing', 'errors.401-body'],
  'secret-upper-in-error': ['errors.401-body', 'errors.no-secret-echo'],
  'validate-valid-string': ['validate.valid'],
  'expired-grace-period': ['validate.rejects-expired', 'business.rejects-expired'],
};

const failing = (verdicts: Record<ProbeName, string>) => PROBE_NAMES.filter((p) => verdicts[p] === 'fail').sort();

describe('catalog', () => {
  it('has unique names, a spec and a one-line description ending in "(breaks <spec>)"', () => {
    expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
    for (const f of FAULTS) {
      expect(f.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(f.spec).toMatch(/^§\d/);
      expect(f.description).not.toContain('\n');
      expect(f.description.endsWith(`(breaks ${f.spec})`)).toBe(true);
    }
  });

  it('recognises its names and nothing else', () => {
    expect(FAULTS.every((f) => isFaultName(f.name))).toBe(true);
    expect(isFaultName('nope')).toBe(false);
    expect(isFaultName('toString')).toBe(false);
  });
});

describe('probes', () => {
  it('all pass against the conformant emulator', async () => {
    const verdicts = await runProbes([]);
    expect(PROBE_NAMES.filter((p) => verdicts[p] !== 'pass')).toEqual([]);
  });
});

describe.each(FAULTS.map((f) => [f.name] as const))('fault %s', (name) => {
  it('fails exactly the probes of its footprint', async () => {
    const verdicts = await runProbes([name]);
    expect(failing(verdicts)).toEqual([...FOOTPRINT[name]].sort());
  });
});

describe('combined faults', () => {
  it.each<FaultName[]>([
    ['wrong-token-type', 'expires-at-ms', 'rate-limit-off'],
    ['secret-not-checked', 'shared-credentials', 'health-check-no-timestamp'],
    ['tls12-accepted', 'plain-http-accepted', 'ccm-suite-accepted'],
    ['wrong-error-body', 'unavailable-instead-of-429', 'validate-wrong-shape'],
  ])('%s + %s + %s fail the union of their footprints', async (...names) => {
    const verdicts = await runProbes(names);
    const union = [...new Set(names.flatMap((n) => FOOTPRINT[n]))].sort();
    expect(failing(verdicts)).toEqual(union);
  });
});
