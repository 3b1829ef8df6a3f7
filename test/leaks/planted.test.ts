// Property: whatever encoding or layout a service puts a credential in, no output shows it. A seeded
// generator (mulberry32; the seed is printed with any failure) plants, in EVERY answer the emulator
// gives (token answer, 401, 429, validate, business answer, health line; body fields, a field split
// in two, headers, Set-Cookie), the client secret, the working token or a token the service rotated
// in a business answer, each in a random encoding (spaced, line-broken, hex, reversed hex, base64,
// base64url, %-encoded, upper- or lower-cased, split over two fields) or two of them stacked. `check`
// runs in-process against it; then stdout, stderr, report.json/.md/.html, junit.xml and the history
// are searched, as a reader reads (letters and digits, case folded), for every planted text and
// every value: nothing may be found. Every refusal that carries the secret must fail its must check.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEmulator, type Emulator } from '../../src/emulator/index.js';
import type { Behaviour, Reply } from '../../src/emulator/types.js';
import { runCliInProcess } from '../helpers/cli.js';
import { seeded } from '../ratelimit/seeded.js';
import { expectValidReport } from '../report/schema.js';
import { filesUnder } from './support.js';

type Random = () => number;
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomValue = (random: Random, length: number) => Array.from({ length }, () => pick(random, [...ALNUM])).join('');

const hex = (s: string) => Buffer.from(s, 'latin1').toString('hex');
const reverse = (s: string) => [...s].reverse().join('');
/** One encoding: a text to a text, or to two pieces (split over two fields). */
const ENCODINGS: Record<string, (s: string, random: Random) => string | [string, string]> = {
  spaced: (s) => [...s].join(' '),
  'line-broken': (s, random) => s.replace(new RegExp(`(.{${4 + Math.floor(random() * 12)}})`, 'g'), '$1\n'),
  hex,
  'reversed hex': (s) => reverse(hex(s)),
  base64: (s) => Buffer.from(s, 'latin1').toString('base64'),
  base64url: (s) => Buffer.from(s, 'latin1').toString('base64url'),
  '%-encoded': (s) => [...Buffer.from(s, 'latin1')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
  'upper-cased': (s) => s.toUpperCase(),
  'lower-cased': (s) => s.toLowerCase(),
  'split over two fields': (s, random) => {
    const at = 8 + Math.floor(random() * (s.length - 16));
    return [s.slice(0, at), s.slice(at)];
  },
};
const NAMES = Object.keys(ENCODINGS);

interface Planting {
  what: string;
  encodings: string[];
  kind: string;
  place: string;
  texts: string[];
}

/** The value through one or two random encodings: the text(s) to plant. */
function encode(random: Random, value: string): { encodings: string[]; texts: string[] } {
  const encodings = random() < 0.5 ? [pick(random, NAMES)] : [pick(random, NAMES), pick(random, NAMES)];
  let texts = [value];
  for (const name of encodings) texts = texts.flatMap((t) => ENCODINGS[name]!(t, random));
  return { encodings, texts };
}

const kindOf = (path: string, status: number): string =>
  status === 429
    ? '429'
    : path === '/tokens'
      ? status === 200
        ? 'token answer'
        : `refusal ${status}`
      : path.startsWith('/v1/')
        ? `business ${status}`
        : path === '/tokens/validate'
          ? `validate ${status}`
          : `${path} ${status}`;

/** An emulator whose every answer carries planted credentials, and the record of what it planted. */
async function plantingEmulator(seed: number, secret: string) {
  const random = seeded(seed);
  const plantings: Planting[] = [];
  const rotated = randomValue(random, 43);
  let working: string | undefined;
  let rotatedShown = false;
  let requests = 0;
  const plant = (reply: Reply, path: string): Reply => {
    const kind = kindOf(path, reply.status);
    const headers = { ...reply.headers };
    let json: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = JSON.parse(reply.body);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    if (kind === 'token answer' && typeof json?.['token'] === 'string') working = json['token'];
    const values = [
      { what: 'the client secret', value: secret },
      ...(working ? [{ what: 'the working token', value: working }] : []),
      ...(rotatedShown ? [{ what: 'the rotated token', value: rotated }] : []),
    ];
    let text = json === undefined ? reply.body : '';
    for (let n = 0; n < 2; n++) {
      // A refusal always carries the secret: the must check it breaks is then known.
      const { what, value } = n === 0 && reply.status === 401 ? values[0]! : pick(random, values);
      const { encodings, texts } = encode(random, value);
      const place = json ? pick(random, ['body', 'body', 'header', 'set-cookie']) : pick(random, ['body', 'header']);
      texts.forEach((t, i) => {
        const name = `x-debug-${n}-${i}`;
        if (place === 'header') headers[name] = t.replace(/\s+/g, ' ');
        else if (place === 'set-cookie')
          headers['set-cookie'] =
            `${headers['set-cookie'] ? `${headers['set-cookie']}, ` : ''}dbg${n}${i}=${encodeURIComponent(t)}; Path=/`;
        else if (json) json[`debug_${n}_${i}`] = t;
        else text += ` ${t}`;
      });
      plantings.push({ what, encodings, kind, place, texts });
    }
    // A business answer hands out a rotated token, as a token field: from then on it is a credential too.
    if (json && kind === 'business 200') {
      json['token'] = rotated;
      rotatedShown = true;
    }
    return { ...reply, headers, body: json ? JSON.stringify(json) : text };
  };
  const emulator = await createEmulator({
    port: 0,
    environments: ['sandbox'],
    credentials: [{ clientId: 'planted-client', clientSecret: secret }],
    rateLimit: { rps: 200, burst: 200 },
    overrides: [
      (base: Behaviour) => ({
        finish: (reply, ctx) => plant(base.finish(reply, ctx), ctx.req.path),
        // Two 429s a run (the harness waits each out), so refusals of the rate limit carry plantings too.
        limit: (ctx, key) => (++requests % 40 === 5 ? { ok: false, retryAfterS: 1 } : base.limit(ctx, key)),
      }),
    ],
  });
  return { emulator, plantings, rotated: () => (rotatedShown ? [rotated] : []) };
}

/** Letters and digits, lower case: what a reader of the output reads. */
const normal = (s: string) => s.replace(/[^A-Za-z0-9]+/g, '').toLowerCase();
/** The test's own reader: any `size` letters and digits in a row of a planted text or a value, either way round. */
function readableIn(outputs: Array<{ name: string; text: string }>, texts: string[], size: number): string[] {
  const windows = new Map<string, string>();
  for (const t of texts) {
    const n = normal(t);
    for (const form of [n, reverse(n)])
      for (let i = 0; i + size <= form.length; i++) windows.set(form.slice(i, i + size), t);
  }
  const found: string[] = [];
  for (const { name, text } of outputs) {
    const n = normal(text);
    for (let i = 0; i + size <= n.length; i++) {
      const t = windows.get(n.slice(i, i + size));
      if (t !== undefined) found.push(`${name}: ${JSON.stringify(n.slice(i, i + size))} of ${JSON.stringify(t)}`);
    }
  }
  return [...new Set(found)];
}

// Each seed is one `check` run whose every answer (a hundred or so) carries two plantings.
const SEEDS = [11, 29, 47];

describe('credentials planted in every answer, in random encodings and layouts', () => {
  const everyPlanting: Planting[] = [];
  const dirs: string[] = [];
  const emulators: Emulator[] = [];
  afterAll(async () => {
    for (const e of emulators) await e.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  // Side by side, each on its own emulator and folder: a run waits out token.same-before-expiry's
  // span (its first token plus 1.1 s) more than it computes. The test after them reads all three.
  it.concurrent.for(SEEDS)(
    'seed %i: no output shows any, and the refusals fail their must check',
    { timeout: 180_000 },
    async (seed, { expect }) => {
      const random = seeded(seed * 7919);
      const secret = randomValue(random, 20 + Math.floor(random() * 20));
      const planted = await plantingEmulator(seed, secret);
      emulators.push(planted.emulator);
      const dir = mkdtempSync(join(tmpdir(), 'ces-planted-'));
      dirs.push(dir);
      writeFileSync(join(dir, 'ca.pem'), planted.emulator.caPem);
      const r = await runCliInProcess(
        [
          'check',
          '--base-url',
          planted.emulator.url,
          '--ca',
          'ca.pem',
          '--report-dir',
          'reports/r',
          '--skip',
          'ratelimit.*',
        ],
        {
          cwd: dir,
          env: { CES_CLIENT_ID: 'planted-client', CES_CLIENT_SECRET: secret },
          timeoutMs: 170_000,
        },
      );
      const seen = `seed ${seed}`;
      everyPlanting.push(...planted.plantings);
      const outputs = [
        { name: 'stdout', text: r.stdout },
        { name: 'stderr', text: r.stderr },
        ...filesUnder(dir).filter((f) => f.name !== 'ca.pem'),
      ];
      expect(
        outputs.map((o) => o.name).filter((n) => /report\.(json|md|html)$|junit\.xml$|history/.test(n)).length,
        seen,
      ).toBeGreaterThanOrEqual(5);
      // Every kind of answer carried plantings, in every encoding, between them.
      const kinds = new Set(planted.plantings.map((p) => p.kind));
      for (const kind of ['token answer', 'refusal 401', 'validate 200', 'business 200'])
        expect([...kinds], seen).toContain(kind);
      const values = [secret, ...planted.emulator.issuedTokens(), ...planted.rotated()];
      const texts = planted.plantings.flatMap((p) => p.texts);
      // 8 letters and digits of a value, 16 of a planted (encoded) text: none may be read anywhere.
      expect([...readableIn(outputs, values, 8), ...readableIn(outputs, texts, 16)], seen).toEqual([]);

      const report = JSON.parse(readFileSync(join(dir, 'reports/r/report.json'), 'utf8')) as {
        verdict: string;
        checks: Array<{ id: string; status: string }>;
      };
      expectValidReport(report);
      const status = (id: string) => report.checks.find((c) => c.id === id)?.status;
      expect(r.code, seen).toBe(1);
      expect(report.verdict, seen).toBe('fail');
      expect(status('token.bad-secret-401'), seen).toBe('fail');
      expect(status('token.no-secret-echo'), seen).toBe('warn');
    },
  );

  it('planted every encoding, alone and stacked, in every kind of answer, across the runs above', () => {
    const used = new Set(everyPlanting.map((p) => p.encodings.join(' + ')));
    for (const name of NAMES) expect([...used]).toContain(name);
    expect([...used].filter((u) => u.includes(' + ')).length).toBeGreaterThan(50);
    const kinds = new Set(everyPlanting.map((p) => p.kind));
    for (const kind of ['token answer', 'refusal 401', '429', 'validate 200', 'business 200'])
      expect([...kinds]).toContain(kind);
    expect(new Set(everyPlanting.map((p) => p.place))).toEqual(new Set(['body', 'header', 'set-cookie']));
  });
});
