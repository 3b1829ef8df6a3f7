// The false-alarm benchmark's "real sandbox" section: a conformant service unlike our emulator
// must pass as often as the emulator does. Three kinds of run, idle and with every core saturated:
// - every emulator profile (a gateway's habits, JWTs, other date formats, …): `check` against each
//   alone, `run` against each group of profiles that set nothing twice (profiles/groups.ts);
// - credentials shared with another client: a token fetched before the run by someone else, at
//   several ages, then `check` against the same service (§3: it gets that same token back);
// - a long-lived client (a service that never exits) under `ces-harness client`.
// Each non-pass is a false alarm; the target is 0. Only the CLI is run, as a user runs it.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { createEmulator, PROFILES } from '../src/emulator/index.js';
import { PROFILE_GROUPS } from '../src/emulator/profiles/groups.js';
import { runCommand } from './proc.js';
import { saturateCpu } from './saturate.js';
import { ms, summarize, type Section, type Summary } from './stats.js';

export const REAL_SANDBOX_DEFAULTS = { perCase: 1 } as const;

/** Ages (s) of the token another client of the same credentials fetched before the run. */
const SHARED_TOKEN_AGES_S = [1, 3_600, 43_200, 86_000] as const;

// Generous: a saturated machine runs everything slower, and a hang must still end as a non-pass.
const TIMEOUT_MS = { check: 180_000, run: 420_000, client: 180_000 } as const;

type Mode = 'idle' | 'saturated';

interface Case {
  kind: 'profile' | 'shared credentials' | 'long-lived client';
  name: string;
  command: keyof typeof TIMEOUT_MS;
  /** Runs it once in `cwd`: the CLI's exit code (or 'timeout') and its output. */
  run(cwd: string, opts: RealSandboxOptions): Promise<{ code: string; output: string; wallMs: number }>;
}

export interface RealSandboxRow {
  mode: Mode;
  kind: Case['kind'];
  name: string;
  command: string;
  n: number;
  nonPass: number;
  wall: Summary;
  reasons: string[];
}

export interface RealSandboxOptions {
  perCase: number;
  /** Which machine states to run in (both by default). */
  modes?: readonly Mode[];
  /** Only the cases whose kind is listed (all by default). */
  kinds?: ReadonlyArray<Case['kind']>;
  projectRoot: string;
  progress(message: string): void;
}

const cli = (opts: RealSandboxOptions) => join(opts.projectRoot, 'bin', 'ces-harness.js');

/** The user's own target settings would test something else. */
const withoutTarget = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('CES_')));

async function runCli(
  args: string[],
  cwd: string,
  timeoutMs: number,
  opts: RealSandboxOptions,
  extraEnv: NodeJS.ProcessEnv = {},
) {
  const r = await runCommand(process.execPath, [cli(opts), ...args], {
    timeoutMs,
    cwd,
    env: { ...withoutTarget(process.env), ...extraEnv },
  });
  return { code: r.timedOut ? 'timeout' : String(r.code), output: r.stdout + r.stderr, wallMs: r.wallMs };
}

const profileCases = (): Case[] => [
  ...PROFILES.map((p): Case => ({
    kind: 'profile',
    name: p.name,
    command: 'check',
    run: (cwd, opts) =>
      runCli(['check', '--profile', p.name, '--report-dir', join(cwd, 'report')], cwd, TIMEOUT_MS.check, opts),
  })),
  ...PROFILE_GROUPS.map((group): Case => ({
    kind: 'profile',
    name: group.join(' + '),
    command: 'run',
    run: (cwd, opts) =>
      runCli(
        [
          'run',
          ...group.flatMap((name) => ['--profile', name]),
          '--duration',
          '2',
          '--report-dir',
          join(cwd, 'report'),
        ],
        cwd,
        TIMEOUT_MS.run,
        opts,
      ),
  })),
];

/**
 * A service whose clock the bench holds back while "another client" fetches the token, so that
 * token was issued `ageS` ago; then `check` runs against it as a real target (with its own ledger
 * in a fresh folder: it has never seen this token).
 */
const sharedCredentialCases = (): Case[] =>
  SHARED_TOKEN_AGES_S.map((ageS): Case => ({
    kind: 'shared credentials',
    name: `token fetched ${ageLabel(ageS)} earlier`,
    command: 'check',
    async run(cwd, opts) {
      let offsetMs = ageS * 1000;
      const emulator = await createEmulator({ port: 0, environments: ['sandbox'], now: () => Date.now() - offsetMs });
      try {
        await fetchTokenAsAnotherClient(emulator.url, emulator.caPem, emulator.credentials);
        offsetMs = 0;
        return await runCli(
          ['check', '--base-url', emulator.url, '--ca', emulator.caFile, '--report-dir', join(cwd, 'report')],
          cwd,
          TIMEOUT_MS.check,
          opts,
          {
            CES_CLIENT_ID: emulator.credentials.clientId,
            CES_CLIENT_SECRET: emulator.credentials.clientSecret,
          },
        );
      } finally {
        await emulator.close();
      }
    },
  }));

/** The reference client made long-lived: it ignores the run length the harness gives it. */
const longLivedClientCases = (): Case[] => [
  {
    kind: 'long-lived client',
    name: 'node-undici reference client that never stops on its own',
    command: 'client',
    run: (cwd, opts) =>
      runCli(
        [
          'client',
          '--scenario',
          'steady',
          '--time-limit',
          '20',
          '--report-dir',
          join(cwd, 'report'),
          '--',
          '/bin/sh',
          '-c',
          `CES_RUN_SECONDS=100000 exec ${process.execPath} ${join(opts.projectRoot, 'examples', 'clients', 'node-undici.mjs')}`,
        ],
        cwd,
        TIMEOUT_MS.client,
        opts,
      ),
  },
];

async function fetchTokenAsAnotherClient(
  baseUrl: string,
  caPem: string,
  credentials: { clientId: string; clientSecret: string },
): Promise<void> {
  const dispatcher = new Agent({ connect: { ca: caPem, minVersion: 'TLSv1.3' } });
  try {
    const res = await request(`${baseUrl}/tokens`, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: { client_id: credentials.clientId, client_secret: credentials.clientSecret } }),
      signal: AbortSignal.timeout(10_000),
    });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`the other client's POST /tokens got ${res.statusCode}`);
  } finally {
    await dispatcher.close();
  }
}

const ageLabel = (s: number) =>
  s < 60 ? `${s} s` : s < 7_200 ? `${Math.round(s / 60)} min` : `${(s / 3_600).toFixed(1)} h`;

export async function benchRealSandbox(opts: RealSandboxOptions): Promise<RealSandboxRow[]> {
  const cases = [...profileCases(), ...sharedCredentialCases(), ...longLivedClientCases()].filter(
    (c) => opts.kinds === undefined || opts.kinds.includes(c.kind),
  );
  const rows: RealSandboxRow[] = [];
  for (const mode of opts.modes ?? (['idle', 'saturated'] as const)) {
    const budgetS = cases.reduce((s, c) => s + (opts.perCase * TIMEOUT_MS[c.command]) / 1000, 0);
    const saturation = mode === 'saturated' ? await saturateCpu({ maxS: budgetS }) : undefined;
    if (saturation) opts.progress(`stress-ng --cpu ${saturation.workers} is saturating every core`);
    try {
      for (const c of cases) rows.push(await repeat(c, mode, opts));
    } finally {
      await saturation?.stop();
    }
  }
  return rows;
}

async function repeat(c: Case, mode: Mode, opts: RealSandboxOptions): Promise<RealSandboxRow> {
  const walls: number[] = [];
  const reasons: string[] = [];
  let nonPass = 0;
  for (let i = 1; i <= opts.perCase; i++) {
    opts.progress(`real sandbox, ${mode}: ${c.kind} ${c.name}: ${c.command} ${i}/${opts.perCase}`);
    const cwd = await mkdtemp(join(tmpdir(), 'ces-bench-real-sandbox-'));
    try {
      const r = await c.run(cwd, opts);
      walls.push(r.wallMs);
      if (r.code !== '0') {
        nonPass++;
        if (reasons.length < 3)
          reasons.push(`${c.kind} ${c.name} ${c.command} #${i} (${mode}, exit ${r.code}): ${whyNotPass(r.output)}`);
      }
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  }
  return {
    mode,
    kind: c.kind,
    name: c.name,
    command: c.command,
    n: opts.perCase,
    nonPass,
    wall: summarize(walls),
    reasons,
  };
}

/** The CLI's failure lines (already redacted by it), shortened to one. */
function whyNotPass(output: string): string {
  const lines = output.split('\n').filter((l) => /^(✗|E error|FAIL|.*not tested)/.test(l.trim()));
  return (lines.slice(0, 3).join(' | ') || output.trim().split('\n').at(-1) || '(no output)').slice(0, 400);
}

export function realSandboxSection(rows: readonly RealSandboxRow[]): Section {
  const total = rows.reduce((s, r) => s + r.nonPass, 0);
  return {
    title: '6b. False alarms in a real sandbox: profiles, shared credentials, long-lived clients, idle and saturated',
    headers: ['machine', 'kind', 'case', 'command', 'n', 'non-pass', 'median', 'max'],
    rows: rows.map((r) => [
      r.mode,
      r.kind,
      r.name,
      r.command,
      String(r.n),
      String(r.nonPass),
      ms(r.wall.median),
      ms(r.wall.max),
    ]),
    notes: [
      `Every non-pass against a conformant service (or a correct client) is a false alarm; target 0. Total: ${total}.`,
      'Shared credentials: the bench fetches the token as another client would, with the service clock held back by the age shown, then runs check against the same service.',
      'Long-lived client: the reference Node client with CES_RUN_SECONDS overridden, so it is still working when the time limit stops it.',
      ...rows.flatMap((r) => r.reasons),
    ],
  };
}
