// client.secret-kept judges the secret by value in every encoding, and the client's echoed output
// is redacted before it is cut: a secret printed hex or %-encoded, or sent %-encoded in a query, hex
// in a path or a header, fails the check, and no form of it (nor 12 characters of it) reaches any
// output.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { fixture, runClientCli } from './run-client.js';

const scratch = mkdtempSync(join(tmpdir(), 'ces-encoded-secret-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const hex = (s: string) => Buffer.from(s).toString('hex');
const percent = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
/** The secret's forms, and every 12-character piece of it. */
const formsOf = (s: string) => [
  s,
  hex(s),
  hex(s).toUpperCase(),
  percent(s),
  percent(s).toUpperCase(),
  ...Array.from({ length: s.length - 11 }, (_, i) => s.slice(i, i + 12)),
];

const CASES = [
  { client: 'prints-secret-encoded.mjs', form: 'hex', place: /client output/ },
  { client: 'prints-secret-encoded.mjs', form: 'percent', place: /client output/ },
  { client: 'prints-secret-encoded.mjs', form: 'long-line', place: /client output/ },
  { client: 'sends-secret-encoded.mjs', form: 'query', place: /query string/ },
  { client: 'sends-secret-encoded.mjs', form: 'path', place: /URL path/ },
  { client: 'sends-secret-encoded.mjs', form: 'header', place: /header x-debug/ },
] as const;

describe('a client that leaks its secret encoded', () => {
  // Side by side: each run waits on its client's 2 s of calls, with its own emulator and secret file.
  it.concurrent.for(CASES)(
    '$client ($form): client.secret-kept fails naming $place, and no output holds it',
    async ({ client, form, place }, { expect }) => {
      const secretFile = join(scratch, `secret-${form}`);
      const run = await runClientCli(
        ['--scenario', 'steady', '--time-limit', '30'],
        [process.execPath, fixture(client)],
        { env: { SECRET_FILE: secretFile, SECRET_FORM: form, CES_RUN_SECONDS: '2' } },
      );
      const result = run.report!.checks.find((c) => c.id === 'client.secret-kept')!;
      expect(`${result.status}: ${result.message}`).toMatch(/^fail: /);
      expect(result.message).toMatch(place);
      const secret = readFileSync(secretFile, 'utf8');
      expect(secret.length).toBeGreaterThan(12);
      const leaked = formsOf(secret).filter((f) => (run.stdout + run.stderr + run.files).includes(f));
      expect(leaked).toEqual([]);
    },
  );
});
