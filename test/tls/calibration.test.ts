// Calibration must prove what this machine can offer, and the checks must refuse to read a
// target's refusal as conformance when calibration did not.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calibrate, calibrationBound } from '../../src/tls/calibration.js';
import {
  ALLOWED_SUITE_CASES,
  LEGACY_VERSION_CASES,
  OTHER_SUITE_CASES,
  offerOf,
  type HandshakeCase,
} from '../../src/tls/cases.js';
import { tlsEndpoint } from '../../src/tls/endpoint.js';
import { handshake } from '../../src/tls/handshake.js';
import { runCases } from '../../src/tls/matrix.js';
import { mustRefuse } from '../../src/tls/verdict.js';
import { createTestPki } from './pki.js';
import { CONFORMANT, startDelayedRelay, startTls, type Started } from './servers.js';

// Same offer as the TLS 1.0 case, but at OpenSSL 3's default security level, where the client
// cannot complete a TLS 1.0 handshake at all: a stand-in for a machine whose OpenSSL cannot.
const CRIPPLED_TLS10: HandshakeCase = {
  id: 'test:TLSv1@SECLEVEL=1',
  label: 'TLS 1.0',
  version: 'TLSv1',
  ciphers: 'DEFAULT:@SECLEVEL=1',
};

let conformant: Started;
beforeAll(async () => {
  conformant = await startTls(createTestPki(), CONFORMANT);
});
afterAll(() => conformant.close());

describe('calibrate', () => {
  it.each([...LEGACY_VERSION_CASES, ...ALLOWED_SUITE_CASES, ...OTHER_SUITE_CASES].map((c) => [c.id, c] as const))(
    'this machine can offer %s',
    async (_id, c) => {
      const cal = await calibrate(c);
      expect(cal.detail).toContain('accepted with');
      expect(cal.ok).toBe(true);
    },
  );

  it('is memoized per case', () => {
    const c = LEGACY_VERSION_CASES[0]!;
    expect(calibrate(c)).toBe(calibrate(c));
  });

  it('fails for an offer the probe cannot really make', async () => {
    const cal = await calibrate(CRIPPLED_TLS10);
    expect(cal.ok).toBe(false);
    expect(cal.detail).toMatch(/^a loopback server that accepts TLS 1\.0: refused/);
  });
});

describe('a refusal without calibration', () => {
  it('is an error, not a pass', async () => {
    const endpoint = tlsEndpoint({ baseUrl: conformant.url });
    const results = await runCases(endpoint, [CRIPPLED_TLS10]);
    expect(results[0]!.result.ok).toBe(false);
    const outcome = mustRefuse(endpoint, results, '§5.8 wants TLS 1.3 only');
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain("this machine's OpenSSL cannot offer TLS 1.0");
    expect(outcome.message).toContain('so its refusal proves nothing');
    expect(outcome.evidence?.[0]?.note).toContain('not calibrated');
  });

  it('is an error when the offer cannot even be built here, and the target is not asked', async () => {
    const endpoint = tlsEndpoint({ baseUrl: conformant.url });
    const bogus: HandshakeCase = {
      id: 'test:no-such-suite',
      label: 'TLS 1.3 with only TLS_NO_SUCH_SUITE',
      version: 'TLSv1.3',
      suite: 'TLS_NO_SUCH_SUITE',
    };
    const results = await runCases(endpoint, [bogus]);
    expect(results[0]!.result.error?.stage).toBe('client');
    expect(results[0]!.calibration?.ok).toBe(false);
    const outcome = mustRefuse(endpoint, results, '§5.8 allows only its three suites');
    expect(outcome.status).toBe('error');
    expect(outcome.message).toContain("this machine's OpenSSL cannot offer TLS_NO_SUCH_SUITE");
  });
});

// The calibration's bound once was a fixed 3 s. On a 2-core machine at load 2–9 the loopback
// handshake took longer, and a conformant target's TLS checks ended "cannot offer TLS 1.2" (an
// error) or not tested: the machine's load, not the service, decided the verdict. The bound now
// scales with the check's own handshakes with the target, measured just before on the same machine.
describe('the calibration bound', () => {
  it.each([
    {
      target: 12,
      timeout: 10_000,
      ms: 3_000,
      why: '3 s (the floor; 4 × the slowest handshake with the target, 0.012 s is less)',
    },
    { target: 1_600, timeout: 10_000, ms: 6_400, why: '6.4 s (4 × the slowest handshake with the target, 1.6 s)' },
    {
      target: 4_000,
      timeout: 10_000,
      ms: 10_000,
      why: '10 s (the ceiling, the per-request timeout; 4 × the slowest handshake with the target, 4 s is more)',
      capped: true,
    },
    {
      target: 4_000,
      timeout: 500,
      ms: 3_000,
      why: '3 s (the floor, which a per-request timeout of 0.5 s does not lower; 4 × the slowest handshake with the target, 4 s is more)',
    },
  ])('a target handshake of $target ms, a request timeout of $timeout ms: $ms ms', ({ target, timeout, ...bound }) => {
    expect(calibrationBound(target, timeout)).toEqual(bound);
  });

  // Distinct ids: the memo is per case, and the cases above are calibrated already.
  const busy = (n: number): HandshakeCase => ({ ...LEGACY_VERSION_CASES[2]!, id: `test:busy-${n}:TLSv1.2` });

  it("scales with the target's handshake: a calibration slower than the old 3 s on a machine that slow is still a calibration", async () => {
    // Every handshake with this target takes 1.5 s longer, as everything does on a busy machine.
    const slow = await startDelayedRelay(conformant.port, 1_500);
    try {
      const endpoint = tlsEndpoint({ baseUrl: slow.url });
      // The two halves side by side: each waits on its own handshakes (1.5 s, then 1.5 + 3.5 s).
      await Promise.all([
        (async () => {
          const [r] = await runCases(endpoint, [busy(1)]);
          expect(r!.result.ok).toBe(false);
          expect(r!.result.durationMs).toBeGreaterThanOrEqual(1_500);
          expect(r!.calibration).toMatchObject({ ok: true, bound: calibrationBound(r!.result.durationMs, 10_000) });
          expect(r!.calibration!.bound!.ms).toBeGreaterThanOrEqual(6_000);
          expect(mustRefuse(endpoint, [r!], '§5.8 wants TLS 1.3 only').status).toBe('pass');
        })(),
        (async () => {
          // The calibration's own handshake held 3.5 s, past the old fixed bound, within this one.
          const target = await handshake({
            host: '127.0.0.1',
            port: slow.port,
            ...offerOf(busy(2)),
            timeoutMs: 10_000,
          });
          const bound = calibrationBound(target.durationMs, endpoint.requestTimeoutMs);
          const cal = await calibrate(busy(2), { bound, holdMs: 3_500 });
          expect(cal.detail).toContain('accepted with');
          expect(cal.ok).toBe(true);
        })(),
      ]);
    } finally {
      await slow.close();
    }
  }, 20_000);

  it('ends "not tested", naming the bound that applied, when the machine is slower still; and a later run calibrates afresh', async () => {
    const endpoint = tlsEndpoint({ baseUrl: conformant.url });
    const c = busy(3);
    const [target] = await runCases(endpoint, [{ ...c, id: 'test:busy-3-target' }]);
    const bound = { ms: 300, why: '0.3 s (4 × the slowest handshake with the target, 0.075 s)' };
    const cal = await calibrate(c, { bound, holdMs: 2_000 });
    expect(cal).toMatchObject({ ok: false, timedOut: true, bound });
    const outcome = mustRefuse(endpoint, [{ ...target!, case: c, calibration: cal }], '§5.8 wants TLS 1.3 only');
    expect(outcome.status).toBe('skip');
    expect(outcome.untested).toBe(true);
    expect(outcome.message).toContain(
      `not tested: ${endpoint.where} refused TLS 1.2, but the loopback calibration that proves this machine can offer TLS 1.2 did not finish within its bound, ${bound.why}: this machine was too busy`,
    );
    expect(outcome.message).toContain('run again when the machine is less busy');
    // Only a bound the per-request timeout capped is raised by raising it.
    expect(outcome.message).not.toContain('--request-timeout');
    const capped = { ...bound, capped: true as const };
    const late = { ...cal, bound: capped };
    expect(mustRefuse(endpoint, [{ ...target!, case: c, calibration: late }], '').message).toContain(
      "run again when the machine is less busy, or raise --request-timeout (the bound's ceiling)",
    );
    expect(outcome.evidence?.[0]?.note).toContain(
      `not calibrated: a loopback server that accepts TLS 1.2: no TLS handshake within the calibration's bound, ${bound.why}`,
    );
    // A busy moment is not remembered as this machine's OpenSSL.
    expect(await calibrate(c)).toMatchObject({ ok: true });
  }, 20_000);
});
