// Named, observable behaviours of the service, each judged pass or fail against a running
// emulator. The fault matrix runs all of them per fault and compares the failing set with the
// fault's declared footprint, so a fault that breaks more (or less) than it names is caught.
// A probe whose precondition does not hold (say, no token could be had at all) is `n/a`: the
// behaviour cannot be judged, which is not the same as being broken.

import { isDeepStrictEqual } from 'node:util';
import type { Answer, Running } from './client.js';
import { start, tokenOf } from './client.js';
import { handshake, plainHttp, portOf } from './tls-probe.js';

export type Verdict = 'pass' | 'fail' | 'n/a';

class NotApplicable extends Error {}

function need(condition: unknown, why: string): asserts condition {
  if (!condition) throw new NotApplicable(why);
}

export interface ProbeContext {
  /** Two environments, generous rate limit, a test clock. */
  main: Running;
  /** One environment with a small bucket (rps 1, burst 3), started on first use. */
  limited(): Promise<Running>;
}

interface Probe {
  name: string;
  run(ctx: ProbeContext): Promise<boolean>;
}

// ---- helpers over the main emulator ------------------------------------------------------------

/** A token and its expiry, when the answer has them in the spec's shape; n/a otherwise. */
async function liveToken(s: Running): Promise<{ token: string; expiresAt: number }> {
  const a = await s.issue();
  need(a.status === 200, `no token: ${a.status}`);
  const body = a.json as { token?: unknown; expires_at?: unknown };
  need(typeof body.token === 'string', 'no token string');
  const expiresAt = body.expires_at;
  need(Number.isInteger(expiresAt), 'expires_at is not an integer');
  // Seconds and plausible: in the future, within ten lifetimes.
  const nowS = s.clock.now() / 1000;
  need((expiresAt as number) > nowS && (expiresAt as number) < nowS + 10 * s.ttlS, 'expires_at is not epoch seconds');
  return tokenOf(a);
}

/** Any token string, whatever expires_at looks like. */
async function anyToken(s: Running): Promise<string> {
  const a = await s.issue();
  const token = (a.json as { token?: unknown } | undefined)?.token;
  need(a.status === 200 && typeof token === 'string', `no token: ${a.status}`);
  return token;
}

/** Moves past any token's lifetime, so the client has no live token. */
const expireAll = (s: Running) => s.clock.advance((s.ttlS + 1) * 1000);

const isJsonError = (a: Answer, error: string) =>
  a.headers['content-type']?.startsWith('application/json') === true && isDeepStrictEqual(a.json, { error });

const BUSINESS = ['/v1/evaluation', '/v1/ach_transactions'];

const carriesCredentialHeader = (a: Answer) =>
  ['set-cookie', 'authorization', 'x-api-key'].some((h) => a.headers[h] !== undefined);

/** The answer's JSON strings, joined in order, hold a token the emulator issued: whole or split over fields. */
const carriesIssuedToken = (s: Running, a: Answer) => {
  const strings = (v: unknown): string[] =>
    typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [];
  const joined = strings(a.json).join('');
  return s.emu.issuedTokens().some((token) => joined.includes(token));
};

async function allBusiness(s: Running, judge: (path: string) => Promise<boolean>): Promise<boolean> {
  const results = await Promise.all(BUSINESS.map(judge));
  return results.every(Boolean);
}

/**
 * Drains the limited emulator's address bucket (burst 3) and returns the first answer whose
 * status differs from the first one's: the refusal, whatever the route itself answers.
 */
async function exhaust(ctx: ProbeContext): Promise<{ s: Running; admitted: number; refused: Answer | undefined }> {
  const s = await ctx.limited();
  s.clock.advance(60_000); // a full bucket, whatever an earlier probe left
  const first = await s.call('POST', '/tokens/health_check');
  for (let i = 0; i < 10; i++) {
    const a = await s.call('POST', '/tokens/health_check');
    if (a.status !== first.status) return { s, admitted: first.status, refused: a };
  }
  return { s, admitted: first.status, refused: undefined };
}

// ---- the probes --------------------------------------------------------------------------------

const probes = [
  {
    name: 'tls.suites',
    run: async ({ main }) => {
      const port = portOf(main.emu.url);
      const suites = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];
      const results = await Promise.all(
        suites.map((c) => handshake(port, main.emu.caPem, { minVersion: 'TLSv1.3', ciphers: c })),
      );
      return results.every((h, i) => h.ok && h.protocol === 'TLSv1.3' && h.cipher === suites[i]);
    },
  },
  {
    name: 'tls.rejects-tls12',
    run: async ({ main }) =>
      !(await handshake(portOf(main.emu.url), main.emu.caPem, { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' })).ok,
  },
  {
    name: 'tls.rejects-ccm',
    run: async ({ main }) => {
      const port = portOf(main.emu.url);
      const results = await Promise.all(
        ['TLS_AES_128_CCM_SHA256', 'TLS_AES_128_CCM_8_SHA256'].map((c) =>
          handshake(port, main.emu.caPem, { minVersion: 'TLSv1.3', ciphers: c }),
        ),
      );
      return results.every((h) => !h.ok);
    },
  },
  {
    name: 'tls.rejects-plain-http',
    run: async ({ main }) => !(await plainHttp(portOf(main.emu.url))).startsWith('HTTP/'),
  },
  {
    name: 'token.issue',
    run: async ({ main }) => {
      const a = await main.issue();
      const token = (a.json as { token?: unknown } | undefined)?.token;
      return (
        a.status === 200 &&
        a.headers['content-type'] === 'application/json' &&
        a.headers['cache-control'] === 'no-store' &&
        a.headers.pragma === 'no-cache' &&
        typeof token === 'string' &&
        token.length > 0
      );
    },
  },
  {
    name: 'token.type',
    run: async ({ main }) => {
      const a = await main.issue();
      need(a.status === 200, 'no token');
      return (a.json as { token_type?: unknown }).token_type === 'Bearer';
    },
  },
  {
    name: 'token.expires-at',
    run: async ({ main }) => {
      // A fresh token, so its issue instant is now: expires_at must be now + ttl in whole seconds.
      expireAll(main);
      const a = await main.issue();
      need(a.status === 200, 'no token');
      const e = (a.json as { expires_at?: unknown }).expires_at;
      return Number.isInteger(e) && Math.abs((e as number) - (main.clock.now() / 1000 + main.ttlS)) <= 1;
    },
  },
  {
    name: 'token.same-before-expiry',
    run: async ({ main }) => {
      const tokens = [await anyToken(main), await anyToken(main), await anyToken(main)];
      return new Set(tokens).size === 1;
    },
  },
  {
    name: 'token.concurrent-first',
    run: async ({ main }) => {
      expireAll(main);
      // Warm 20 connections first, so the token requests arrive together rather than a handshake apart.
      await Promise.all(Array.from({ length: 20 }, () => main.call('POST', '/tokens/health_check')));
      const answers = await Promise.all(Array.from({ length: 20 }, () => main.issue()));
      need(
        answers.every((a) => a.status === 200),
        'not every call got a token',
      );
      return new Set(answers.map((a) => (a.json as { token: unknown }).token)).size === 1;
    },
  },
  {
    name: 'token.expires-at-stable',
    run: async ({ main }) => {
      expireAll(main);
      const first = await main.issue();
      main.clock.advance((main.ttlS / 4) * 1000);
      const again = await main.issue();
      need(first.status === 200 && again.status === 200, 'no token');
      const [a, b] = [first.json as Record<string, unknown>, again.json as Record<string, unknown>];
      need(a.token === b.token, 'a different token came back');
      return isDeepStrictEqual(a.expires_at, b.expires_at);
    },
  },
  {
    name: 'token.works-until-expiry',
    run: async ({ main }) => {
      expireAll(main);
      const { token, expiresAt } = await liveToken(main);
      main.clock.set(expiresAt * 1000 - 1);
      return (await main.call('GET', '/tokens/validate', { bearer: token })).status === 200;
    },
  },
  {
    name: 'token.new-after-expiry',
    run: async ({ main }) => {
      expireAll(main);
      const { token, expiresAt } = await liveToken(main);
      main.clock.set(expiresAt * 1000);
      return (await anyToken(main)) !== token;
    },
  },
  {
    name: 'token.rejects-bad-secret',
    run: async ({ main }) => (await main.issue(0, { ...main.emu.credentials, clientSecret: 'wrong' })).status === 401,
  },
  {
    // §4.1 rule 2: a refusal hands out nothing; a token in the 401 body is a way in without the secret.
    name: 'token.refusal-carries-nothing',
    run: async ({ main }) => {
      const answers = [
        await main.issue(0, { ...main.emu.credentials, clientSecret: 'wrong' }),
        await main.issue(0, { ...main.emu.credentials, clientId: 'nobody' }),
      ];
      return answers.every(
        (a) =>
          a.status === 401 &&
          !/"(access_?)?token"/i.test(a.text) &&
          !carriesCredentialHeader(a) &&
          !carriesIssuedToken(main, a),
      );
    },
  },
  {
    name: 'token.rejects-unknown-client',
    run: async ({ main }) => (await main.issue(0, { ...main.emu.credentials, clientId: 'nobody' })).status === 401,
  },
  {
    name: 'token.rejects-bad-body',
    run: async ({ main }) => {
      const { clientId, clientSecret } = main.emu.credentials;
      const bodies = [
        'not json',
        JSON.stringify({ client_id: clientId, client_secret: clientSecret }),
        JSON.stringify({ token: { client_id: clientId } }),
      ];
      const answers = await Promise.all(
        bodies.map((body) => main.call('POST', '/tokens', { body, headers: { 'content-type': 'application/json' } })),
      );
      return answers.every((a) => a.status === 400);
    },
  },
  {
    // A refused body hands out nothing either: no token in the 4xx body or its headers.
    name: 'token.bad-body-carries-nothing',
    run: async ({ main }) => {
      const { clientId, clientSecret } = main.emu.credentials;
      const bodies = [
        'not json',
        JSON.stringify({ client_id: clientId, client_secret: clientSecret }),
        JSON.stringify({ token: { client_id: clientId } }),
      ];
      const answers = await Promise.all(
        bodies.map((body) => main.call('POST', '/tokens', { body, headers: { 'content-type': 'application/json' } })),
      );
      const refusals = answers.filter((a) => a.status >= 400 && a.status < 500);
      need(refusals.length > 0, 'no bad body was refused');
      return refusals.every(
        (a) => !/"(access_)?token"\s*:\s*"|access_token=/.test(a.text) && !carriesCredentialHeader(a),
      );
    },
  },
  {
    // No answer about credentials gives the secret back, raw or JSON-escaped.
    name: 'errors.no-secret-echo',
    run: async ({ main }) => {
      const creds = main.emu.credentials;
      const answers = [
        await main.issue(0, { ...creds, clientSecret: 'wrong' }),
        await main.issue(0, { ...creds, clientId: 'nobody' }),
        await main.call('POST', '/tokens', { json: { client_id: creds.clientId, client_secret: creds.clientSecret } }),
      ];
      const forms = [
        creds.clientSecret,
        JSON.stringify(creds.clientSecret).slice(1, -1),
        Buffer.from(creds.clientSecret).toString('hex'),
      ];
      // Case-insensitively: a secret shouted back in capitals is still the secret.
      const holds = (text: string, f: string) => text.toLowerCase().includes(f.toLowerCase());
      return answers.every(
        (a) => !forms.some((f) => holds(a.text, f) || Object.values(a.headers).some((h) => holds(h, f))),
      );
    },
  },
  {
    name: 'health.alive',
    run: async ({ main }) => {
      const a = await main.call('POST', '/tokens/health_check');
      const isObject = typeof a.json === 'object' && a.json !== null;
      return (
        a.status === 200 &&
        a.headers['content-type']?.startsWith('text/plain') === true &&
        !isObject &&
        /alive/i.test(a.text) &&
        !a.text.includes('\n')
      );
    },
  },
  {
    name: 'health.timestamp',
    run: async ({ main }) => {
      const a = await main.call('POST', '/tokens/health_check');
      need(a.status === 200, `health check answered ${a.status}`);
      const stamp = /(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})/.exec(a.text);
      if (stamp === null) return false;
      return Math.abs(Date.parse(`${stamp[1]}T${stamp[2]}Z`) - main.clock.now()) <= 1000;
    },
  },
  {
    name: 'validate.valid',
    run: async ({ main }) => {
      const token = await anyToken(main);
      const answers = await Promise.all(
        ['GET', 'POST'].map((m) => main.call(m, '/tokens/validate', { bearer: token })),
      );
      return answers.every((a) => {
        const body = a.json as { valid?: unknown; message?: unknown } | undefined;
        return a.status === 200 && body?.valid === true && typeof body.message === 'string';
      });
    },
  },
  {
    name: 'validate.rejects-missing',
    run: async ({ main }) => (await main.call('GET', '/tokens/validate')).status === 401,
  },
  {
    name: 'validate.rejects-unknown',
    run: async ({ main }) => {
      const unknown = await main.call('GET', '/tokens/validate', { bearer: 'not-a-token' });
      const basic = await main.call('GET', '/tokens/validate', { headers: { authorization: 'Basic eDp5' } });
      return unknown.status === 401 && basic.status === 401;
    },
  },
  {
    // A bearer shaped like the real one, one character off at the start, the middle or the end.
    name: 'validate.rejects-forged',
    run: async ({ main }) => {
      const token = await anyToken(main);
      const forged = [0, token.length >> 1, token.length - 1].map(
        (i) => `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`,
      );
      const answers = await Promise.all(forged.map((bearer) => main.call('GET', '/tokens/validate', { bearer })));
      return answers.every((a) => a.status === 401);
    },
  },
  {
    name: 'validate.rejects-expired',
    run: async ({ main }) => {
      expireAll(main);
      const { token, expiresAt } = await liveToken(main);
      main.clock.set(expiresAt * 1000);
      return (await main.call('GET', '/tokens/validate', { bearer: token })).status === 401;
    },
  },
  {
    name: 'business.ok',
    run: async ({ main }) => {
      const token = await anyToken(main);
      return allBusiness(main, async (path) => {
        const a = await main.call('POST', path, { bearer: token, json: {} });
        return a.status === 200 && typeof a.json === 'object' && a.json !== null;
      });
    },
  },
  {
    name: 'business.rejects-bad-body',
    run: async ({ main }) => {
      const token = await anyToken(main);
      return allBusiness(main, async (path) => {
        const a = await main.call('POST', path, {
          bearer: token,
          body: '[1]',
          headers: { 'content-type': 'application/json' },
        });
        return a.status === 400 && isJsonError(a, 'invalid_request');
      });
    },
  },
  {
    name: 'business.rejects-missing',
    run: async ({ main }) =>
      allBusiness(main, async (path) => (await main.call('POST', path, { json: {} })).status === 401),
  },
  {
    name: 'business.rejects-unknown',
    run: async ({ main }) =>
      allBusiness(
        main,
        async (path) => (await main.call('POST', path, { json: {}, bearer: 'not-a-token' })).status === 401,
      ),
  },
  {
    name: 'business.rejects-expired',
    run: async ({ main }) => {
      const token = await anyToken(main);
      expireAll(main);
      return allBusiness(
        main,
        async (path) => (await main.call('POST', path, { json: {}, bearer: token })).status === 401,
      );
    },
  },
  {
    name: 'errors.401-body',
    run: async ({ main }) => {
      const answers = [
        await main.issue(0, { ...main.emu.credentials, clientSecret: 'wrong' }),
        await main.call('GET', '/tokens/validate', { bearer: 'not-a-token' }),
      ];
      need(
        answers.every((a) => a.status === 401),
        'no 401 to judge',
      );
      return answers.every((a) => isJsonError(a, 'unauthorized'));
    },
  },
  {
    name: 'errors.401-www-authenticate',
    run: async ({ main }) => {
      const missing = await main.call('GET', '/tokens/validate');
      const invalid = await main.call('GET', '/tokens/validate', { bearer: 'not-a-token' });
      need(missing.status === 401 && invalid.status === 401, 'no 401 to judge');
      return (
        missing.headers['www-authenticate']?.startsWith('Bearer ') === true &&
        invalid.headers['www-authenticate']?.includes('error="invalid_token"') === true
      );
    },
  },
  {
    name: 'env.isolation',
    run: async ({ main }) => {
      const [sandbox, production] = main.emu.environments.map((e) => e.credentials);
      need(
        (await main.issue(0, sandbox)).status === 200 && (await main.issue(1, production)).status === 200,
        'own credentials fail',
      );
      const crossed = [await main.issue(1, sandbox), await main.issue(0, production)];
      return crossed.every((a) => a.status === 401);
    },
  },
  {
    name: 'ratelimit.429',
    run: async (ctx) => (await exhaust(ctx)).refused?.status === 429,
  },
  {
    name: 'ratelimit.body',
    run: async (ctx) => {
      const { refused } = await exhaust(ctx);
      need(refused?.status === 429, 'no 429 to judge');
      return isJsonError(refused, 'rate_limit_exceeded');
    },
  },
  {
    name: 'ratelimit.retry-after',
    run: async (ctx) => {
      const { s, admitted, refused } = await exhaust(ctx);
      need(refused?.status === 429, 'no 429 to judge');
      const value = refused.headers['retry-after'] ?? '';
      if (!/^[1-9]\d*$/.test(value)) return false;
      s.clock.advance(Number(value) * 1000);
      return (await s.call('POST', '/tokens/health_check')).status === admitted;
    },
  },
  {
    // §7: a client that waits gets back in. A minute of rest refills any bucket or window.
    name: 'ratelimit.lifts',
    run: async (ctx) => {
      const { s } = await exhaust(ctx);
      s.clock.advance(60_000);
      return (await s.call('POST', '/tokens/health_check')).status !== 429;
    },
  },
] as const satisfies readonly Probe[];

export type ProbeName = (typeof probes)[number]['name'];
export const PROBE_NAMES: readonly ProbeName[] = probes.map((p) => p.name);

/**
 * Runs every probe, one after another (several move the clock), against emulators started with
 * the given faults. Returns each probe's verdict.
 */
export async function runProbes(faults: readonly string[]): Promise<Record<ProbeName, Verdict>> {
  const options = { faults: [...faults] as never[], environments: ['sandbox', 'production'], tokenTtlS: 60 };
  const main = await start({ ...options, rateLimit: { rps: 10_000, burst: 10_000 } });
  let limited: Promise<Running> | undefined;
  const ctx: ProbeContext = {
    main,
    limited: () => (limited ??= start({ ...options, rateLimit: { rps: 1, burst: 3 } })),
  };
  const verdicts = {} as Record<ProbeName, Verdict>;
  try {
    for (const probe of probes) {
      try {
        verdicts[probe.name] = (await probe.run(ctx)) ? 'pass' : 'fail';
      } catch (error) {
        if (!(error instanceof NotApplicable)) throw error;
        verdicts[probe.name] = 'n/a';
      }
    }
  } finally {
    await main.close();
    if (limited) await (await limited).close();
  }
  return verdicts;
}
