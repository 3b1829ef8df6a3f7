// One canary, hunted everywhere. A client secret holding every character that an encoding changes
// is planted in emulators whose answers hand out and reflect credentials in unexpected places;
// `check` runs against each and a bounded `load` against one; then every byte of stdout, stderr,
// every report file, the k6 artefacts, the ledger, the history and the runs' temp folder is searched
// for every form of the secret and of every token the emulators issued (every encoding, and every
// 12-character piece); so are a client run's echo and report for its own secret. Nothing may be found.

import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultName } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { fixture } from '../client/run-client.js';
import { filesUnder, leaksIn, plant, type Planted } from './support.js';

// `"` and `\` change under JSON, `+ / % space` under URL and form encoding.
const SECRET = `ca"na\\ry+/% sec-${process.pid}`;
const CLIENT_ID = 'canary-client';
// Apart, because one answer quoted in a failure message is cut to a line: each leak must show.
const SERVICES: Array<{ faults: FaultName[]; load: boolean }> = [
  { faults: ['secret-in-error', 'malformed-body-token', 'token-in-headers'], load: true },
  { faults: ['reflects-request'], load: false },
  // The working token base64-encoded under `accessToken`, the secret hex-encoded in a 401.
  { faults: ['refusal-token-renamed', 'secret-hex-in-error'], load: false },
];
// A client that prints its own secret hex-encoded and at the end of a 1,000-character line: its
// echo on the terminal and the client report are hunted too, for that secret.
const CLIENT_LEAKS = ['hex', 'long-line'] as const;

describe('the canary', () => {
  const planted: Planted[] = [];
  const outputs: Array<{ name: string; text: string }> = [];
  const codes: string[] = [];
  const clientSecrets: string[] = [];

  beforeAll(async () => {
    // The services side by side (each run mostly waits on its emulator and on k6), and the client
    // runs after the first service's: they share its folder, its ledger and history among them.
    const ran = await Promise.all(
      SERVICES.map(async (service, i) => {
        const p = await plant({ clientId: CLIENT_ID, clientSecret: SECRET }, service.faults);
        // At its index at once, so that afterAll closes it whatever happens next.
        planted[i] = p;
        const runs = [
          ['check', '--report-dir', 'reports/check'],
          ...(service.load ? [['load', '--scenario', 'token-lifecycle', '--report-dir', 'reports/load']] : []),
        ];
        const said: Array<{ code: string; outputs: Array<{ name: string; text: string }> }> = [];
        for (const args of runs) {
          const r = await p.run(args, 180_000);
          said.push({
            code: `${i} ${args[0]}: ${r.code}`,
            outputs: [
              { name: `${i} ${args[0]} stdout`, text: r.stdout },
              { name: `${i} ${args[0]} stderr`, text: r.stderr },
            ],
          });
        }
        if (i === 0) said.push(...(await clientRuns(p)));
        return said;
      }),
    );
    for (const said of ran.flat()) {
      codes.push(said.code);
      outputs.push(...said.outputs);
    }
  }, 500_000);

  /** A client printing its secret in each of CLIENT_LEAKS' forms, run from the first service's folder. */
  async function clientRuns(first: Planted) {
    const said: Array<{ code: string; outputs: Array<{ name: string; text: string }> }> = [];
    for (const form of CLIENT_LEAKS) {
      const secretFile = join(first.dir, `client-secret-${form}`);
      const r = await runCli(
        [
          'client',
          '--scenario',
          'steady',
          '--time-limit',
          '30',
          '--report-dir',
          `reports/client-${form}`,
          '--',
          process.execPath,
          fixture('prints-secret-encoded.mjs'),
        ],
        {
          cwd: first.dir,
          env: { SECRET_FILE: secretFile, SECRET_FORM: form },
        },
      );
      said.push({
        code: `client ${form}: ${r.code}`,
        outputs: [
          { name: `client ${form} stdout`, text: r.stdout },
          { name: `client ${form} stderr`, text: r.stderr },
        ],
      });
      clientSecrets.push(readFileSync(secretFile, 'utf8'));
      rmSync(secretFile);
    }
    return said;
  }

  afterAll(async () => {
    for (const p of planted.filter(Boolean)) {
      await p.emulator.close();
      rmSync(p.dir, { recursive: true, force: true });
    }
  });

  it('ran: check caught each leaking service, load ran k6 to a summary, the ledger was written', () => {
    // load's own verdict is beside the point here (k6 meets the same leaking service); it ran.
    expect(codes.filter((c) => c.includes('check'))).toEqual(['0 check: 1', '1 check: 1', '2 check: 1']);
    // Each client printed its secret and was stopped for it: a failed run.
    expect(codes.filter((c) => c.startsWith('client'))).toEqual(['client hex: 1', 'client long-line: 1']);
    const files = filesUnder(planted[0]!.dir).map((f) => f.name);
    for (const name of [
      'reports/check/report.json',
      'reports/check/report.md',
      'reports/check/report.html',
      'reports/check/junit.xml',
      'reports/load/report.json',
      'reports/load/k6/token-lifecycle.summary.json',
      'ledger/token-ledger.json',
      '.ces-harness/history.jsonl',
      'reports/client-hex/report.json',
    ]) {
      expect(files).toContain(name);
    }
    expect(planted.every((p) => p.emulator.issuedTokens().length > 0)).toBe(true);
  });

  it('no output holds the secret or any issued token, in any form', () => {
    const places = [
      ...outputs,
      ...planted.flatMap((p, i) =>
        filesUnder(p.dir)
          .filter((f) => f.name !== 'ces-harness.yaml')
          .map((f) => ({ ...f, name: `${i} ${f.name}` })),
      ),
    ];
    const values = [
      { what: 'the client secret', value: SECRET },
      // Whole: its pieces are mostly the client_id, which is no secret.
      { what: 'Basic auth of the client', value: `${CLIENT_ID}:${SECRET}`, whole: true },
      ...clientSecrets.map((value, n) => ({ what: `the secret of client run ${n + 1}`, value })),
      ...planted.flatMap((p, i) =>
        p.emulator.issuedTokens().map((token, n) => ({ what: `token #${n + 1} of service ${i}`, value: token })),
      ),
    ];
    expect(leaksIn(places, values)).toEqual([]);
  });
});
