// `npm run bench -- client`: what `ces-harness client` costs around the user's client, and how soon
// it stops one that misbehaves. Each item runs the built CLI on loopback with a fixture client:
//   overhead       wall time of the CLI minus the client's own run (emulator, certificates, report)
//   hang → stop    wall time past --time-limit for a client that never exits (SIGTERM, then SIGKILL)
//   flood → stop   wall time for a client that sends as fast as it can (stopped at the request cap)
//   secret → stop  wall time for a client that prints its secret (stopped at once)

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './proc.js';
import { ms, summarize, type Section } from './stats.js';

const HANG_LIMIT_S = 2;

interface Item {
  label: string;
  fixture: string;
  flags: string[];
  /** What to take off the wall time to get the harness' share. */
  subtract: (report: { client?: { runs: Array<{ duration_ms: number }> } } | undefined) => number;
}

const ITEMS: Item[] = [
  {
    label: 'overhead around a 5 s well-behaved client (steady)',
    fixture: 'well-behaved.mjs',
    flags: ['--scenario', 'steady'],
    subtract: (r) => r?.client?.runs[0]?.duration_ms ?? 0,
  },
  {
    label: `hang → stopped, past a ${HANG_LIMIT_S} s --time-limit`,
    fixture: 'hangs.mjs',
    flags: ['--scenario', 'steady', '--time-limit', String(HANG_LIMIT_S)],
    subtract: () => HANG_LIMIT_S * 1000,
  },
  { label: 'flood → stopped (wall time)', fixture: 'floods.mjs', flags: ['--scenario', 'steady'], subtract: () => 0 },
  {
    label: 'printed secret → stopped (wall time)',
    fixture: 'prints-secret.mjs',
    flags: ['--scenario', 'steady'],
    subtract: () => 0,
  },
];

export async function benchClientTime(o: {
  runs: number;
  projectRoot: string;
  progress: (m: string) => void;
}): Promise<Section> {
  const scratch = mkdtempSync(join(tmpdir(), 'ces-bench-client-'));
  try {
    const rows: string[][] = [];
    for (const item of ITEMS) {
      o.progress(`client: ${item.label} ×${o.runs}`);
      const samples: number[] = [];
      for (let i = 0; i < o.runs; i++) {
        const dir = join(scratch, `${item.fixture}-${i}`);
        const env = {
          PATH: process.env['PATH'],
          HOME: process.env['HOME'],
          NO_COLOR: '1',
          HANG_PID_FILE: join(scratch, 'hang.pid'),
          SECRET_FILE: join(scratch, 'secret'),
        };
        const fixture = join(o.projectRoot, 'test/fixtures/clients', item.fixture);
        const r = await runCommand(
          process.execPath,
          [
            join(o.projectRoot, 'bin/ces-harness.js'),
            'client',
            '--report-dir',
            dir,
            ...item.flags,
            '--',
            process.execPath,
            fixture,
          ],
          { timeoutMs: 60_000, env },
        );
        if (r.timedOut) throw new Error(`${item.fixture} did not finish within 60 s`);
        let report;
        try {
          report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Parameters<Item['subtract']>[0];
        } catch {
          report = undefined;
        }
        samples.push(r.wallMs - item.subtract(report));
      }
      const s = summarize(samples);
      rows.push([item.label, ms(s.median), ms(s.min), ms(s.max)]);
    }
    return {
      title: '7. ces-harness client: overhead and time to stop a misbehaving client',
      headers: ['item', 'median', 'min', 'max'],
      rows,
      notes: [
        'Each through the built CLI, a fresh emulator per run; the well-behaved client works for CES_RUN_SECONDS (5 s) by itself.',
      ],
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
