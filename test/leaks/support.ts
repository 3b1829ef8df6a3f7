// Leak hunting: an emulator with planted credentials, the CLI run against it as a user runs it,
// and a search of every byte the run left behind for every form of the secret and of every token
// the emulator handed out. The forms are computed here, independently of src/http/redact, so a
// layer missing there cannot hide itself from the search.

import { lstatSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createEmulator, type Emulator, type FaultName } from '../../src/emulator/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';

export interface Planted {
  emulator: Emulator;
  /** Holds the config, the reports, the ledger and TMPDIR: everything the runs may write. */
  dir: string;
  run(args: string[], timeoutMs?: number): Promise<CliResult>;
}

/** The emulator (127.0.0.1, port 0) with these credentials, and a folder with a config for it. */
export async function plant(
  credentials: { clientId: string; clientSecret: string },
  faults: FaultName[],
): Promise<Planted> {
  const emulator = await createEmulator({
    port: 0,
    environments: ['sandbox'],
    credentials: [credentials],
    faults,
    rateLimit: { rps: 200, burst: 200 },
  });
  const dir = mkdtempSync(join(tmpdir(), 'ces-leaks-'));
  const tmp = mkdtempSync(join(dir, 'tmp-'));
  writeFileSync(
    join(dir, 'ces-harness.yaml'),
    [
      'target: sandbox',
      'environments:',
      '  sandbox:',
      `    base_url: ${emulator.url}`,
      '    client_id: ${CES_CLIENT_ID}',
      '    client_secret: ${CES_CLIENT_SECRET}',
      `    ca_file: ${emulator.caFile}`,
      'ledger: ledger/token-ledger.json',
      'rate_limit: { endpoint: tokens.validate, max_rps: 120, max_requests: 300 }',
      'load: { rate: 5, duration_s: 2, vus: 2 }',
      '',
    ].join('\n'),
  );
  const env = { CES_CLIENT_ID: credentials.clientId, CES_CLIENT_SECRET: credentials.clientSecret, TMPDIR: tmp };
  return { emulator, dir, run: (args, timeoutMs = 120_000) => runCli(args, { cwd: dir, env, timeoutMs }) };
}

const hexOf = (v: string) => Buffer.from(v).toString('hex');
const percentAll = (v: string) =>
  [...Buffer.from(v)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('');
/** The value's base64 as it shows inside a longer base64 string starting `offset` bytes in: the middle only. */
const base64At = (v: string, offset: number, url: boolean) => {
  const text = Buffer.from('\u0001\u0002'.slice(0, offset) + v)
    .toString(url ? 'base64url' : 'base64')
    .replace(/=+$/, '');
  return text.slice(3, -3);
};

/** Every form a value can take in an output (what the harness must never write). */
export function formsOf(value: string, pieces = true): Array<{ form: string; text: string }> {
  const json = JSON.stringify(value).slice(1, -1);
  const forms = [
    { form: 'raw', text: value },
    { form: 'JSON-escaped', text: json },
    { form: 'JSON-escaped twice', text: JSON.stringify(json).slice(1, -1) },
    { form: 'percent-encoded', text: encodeURIComponent(value) },
    {
      form: 'percent-encoded, lower case',
      text: encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    },
    { form: 'form-encoded', text: encodeURIComponent(value).replace(/%20/g, '+') },
    { form: 'fully percent-encoded', text: percentAll(value) },
    { form: 'fully percent-encoded, lower case', text: percentAll(value).toLowerCase() },
    { form: 'hex', text: hexOf(value) },
    { form: 'hex, upper case', text: hexOf(value).toUpperCase() },
    { form: 'base64', text: Buffer.from(value).toString('base64') },
    { form: 'base64url', text: Buffer.from(value).toString('base64url') },
    // Only where the middle is long enough to be the value's and nothing else's.
    ...[1, 2]
      .flatMap((offset) =>
        [false, true].map((url) => ({
          form: `base64${url ? 'url' : ''} at offset ${offset}`,
          text: base64At(value, offset, url),
        })),
      )
      .filter((f) => f.text.length >= 12),
    {
      form: '\\u escapes',
      text: [...value].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
    },
    { form: '&# references', text: [...value].map((c) => `&#${c.codePointAt(0)};`).join('') },
    { form: '&#x references', text: [...value].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join('') },
    { form: 'reversed', text: [...value].reverse().join('') },
    {
      form: 'HTML-escaped',
      text: value
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;'),
    },
    // A cut that shows most of it: every 12-character piece (the redactor's promise).
    ...(pieces && value.length > 12
      ? Array.from({ length: value.length - 11 }, (_, i) => ({
          form: `12 characters from ${i}`,
          text: value.slice(i, i + 12),
        }))
      : []),
  ];
  return forms.filter((f, i) => f.text.length >= 3 && forms.findIndex((g) => g.text === f.text) === i);
}

/** Every regular file under `dir`, as a name relative to it and its bytes as text. */
export function filesUnder(dir: string): Array<{ name: string; text: string }> {
  const out: Array<{ name: string; text: string }> = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      const path = join(d, entry);
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile())
        out.push({
          name: relative(dir, path),
          text: readFileSync(path).toString('latin1') + '\n' + readFileSync(path, 'utf8'),
        });
    }
  };
  walk(dir);
  return out;
}

/**
 * "where: what (form)" for each place a value appears. A value shorter than 6 characters counts
 * where it stands alone (no letter or digit either side): the rule the redactor promises.
 */
export function leaksIn(
  places: Array<{ name: string; text: string }>,
  values: Array<{ what: string; value: string; whole?: boolean }>,
): string[] {
  const found: string[] = [];
  for (const { what, value, whole } of values) {
    for (const { form, text } of formsOf(value, !whole)) {
      const alone = new RegExp(`(?<![A-Za-z0-9])${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`);
      for (const place of places) {
        if (text.length >= 6 ? place.text.includes(text) : alone.test(place.text))
          found.push(`${place.name}: ${what} (${form})`);
      }
    }
  }
  return [...new Set(found)];
}
