// Reports and terminal lines quote a service's answer by the spec (issue 36): §7's error code and
// the status as they are, every field of the service's own as its shape. A refusal that hands the
// secret back in a layout or encoding the matcher may not know (spaced, upper-cased, hex, reversed,
// split over fields) or carries a value of its own puts none of it in any output, and the reader
// still sees the status and the error code. --verbose-bodies shows the service's own words.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPORT_FILES } from '../../src/cli/report-place.js';
import { runCliInProcess } from '../helpers/cli.js';
import { checkArgs, startRefusingServer, type RefusingServer } from '../helpers/refusing-server.js';
import { createTestPki } from '../tls/pki.js';

const SECRET = 'Qz7vLm2XpK9rTw4N';
const OWN_VALUE = 'ref-8c1f0e2d9b7a6c5e4f3a2b1c0d9e8f7a';
const pki = createTestPki();
const reverse = (s: string) => [...s].reverse().join('');

const planted: Array<{ name: string; fields: Record<string, unknown>; pieces: string[] }> = [
  {
    name: 'the secret spaced out',
    fields: { echo: [...SECRET].join(' ') },
    pieces: [[...SECRET.slice(0, 8)].join(' ')],
  },
  {
    name: 'the secret upper-cased',
    fields: { echo: SECRET.toUpperCase() },
    pieces: [SECRET.toUpperCase().slice(0, 8)],
  },
  {
    name: 'the secret in hex',
    fields: { echo: Buffer.from(SECRET).toString('hex') },
    pieces: [Buffer.from(SECRET).toString('hex').slice(0, 16)],
  },
  { name: 'the secret reversed', fields: { echo: reverse(SECRET) }, pieces: [reverse(SECRET).slice(0, 8)] },
  {
    name: 'the secret split over two fields',
    fields: { a: SECRET.slice(0, 8), b: SECRET.slice(8) },
    pieces: [SECRET.slice(0, 8), SECRET.slice(8)],
  },
  { name: 'a value of its own, nested', fields: { data: { ref: OWN_VALUE } }, pieces: [OWN_VALUE.slice(0, 12)] },
];

let server: RefusingServer | undefined;
afterEach(async () => server?.close());

async function checkAgainst(body: Record<string, unknown>, extra: string[] = []) {
  server = await startRefusingServer(pki, JSON.stringify(body));
  const cwd = mkdtempSync(join(tmpdir(), 'ces-quote-'));
  writeFileSync(join(cwd, 'ca.pem'), pki.caPem);
  const res = await runCliInProcess(checkArgs(server.url, 'r', ...extra), {
    cwd,
    env: { CES_CLIENT_ID: 'client-7', CES_CLIENT_SECRET: SECRET },
  });
  const files = REPORT_FILES.filter((f) => f.startsWith('report') || f.endsWith('.xml')).map((f) =>
    readFileSync(join(cwd, 'r', f), 'utf8'),
  );
  return { res, outputs: [res.stdout, res.stderr, ...files], md: files[1]! };
}

describe('a refusal is quoted by the spec', () => {
  it.each(planted)('$name: in no output; status and error code kept', async ({ fields, pieces }) => {
    const { res, outputs, md } = await checkAgainst({ error: 'invalid_client', ...fields });
    expect(res.code, res.stderr).toBe(1);
    for (const out of outputs) for (const piece of pieces) expect(out).not.toContain(piece);
    // What a user acts on: the status, §7's code, and which fields came back (as shapes).
    expect(md).toContain('401');
    expect(md).toContain('"error":"invalid_client"');
    expect(md).toMatch(/<string, \d+ chars/);
  });

  it("--verbose-bodies quotes the service's own words, still without the secret", async () => {
    const body = { error: 'invalid_client', hint: 'ask the admin', echo: SECRET };
    const plain = await checkAgainst(body);
    expect(plain.md).not.toContain('ask the admin');
    const verbose = await checkAgainst(body, ['--verbose-bodies']);
    expect(verbose.md).toContain('ask the admin');
    for (const out of verbose.outputs) expect(out).not.toContain(SECRET);
  });
});
