// Bench 2: the TLS matrix (the six tls.* checks together) against sslscan, the same emulator for
// both, in the same run. Also how many connections each opens to the target, counted by a relay.

import { CHECKS } from '../checks/index.js';
import type { Target } from '../src/config/target.js';
import { Redactor } from '../src/http/redact.js';
import type { CheckResult } from '../src/report/model.js';
import { runConformance } from '../src/runner/conformance.js';
import { Ledger } from '../src/runner/ledger.js';
import { selectChecks } from '../src/runner/run-checks.js';
import { clearSecureContexts } from '../src/http/secure-contexts.js';
import { clearCalibrations } from '../src/tls/calibration.js';
import { ALLOWED_SUITE_CASES, LEGACY_VERSION_CASES, OTHER_SUITE_CASES } from '../src/tls/cases.js';
import { startConnCounter } from './conn-counter.js';
import { runCommand, which } from './proc.js';
import { ms, ratio, slowest, summarize, type Section, type Summary } from './stats.js';

/** sslscan's socket timeout is 3 s per connection; a whole scan on loopback takes well under one. */
const SSLSCAN_TIMEOUT_MS = 60_000;

// sslscan also probes fallback SCSV, renegotiation, compression, Heartbleed and every key-exchange
// group, none of which §5.8 asks about. The lean run leaves those out: protocols, ciphers and the
// certificate, the same ground as the tls.* checks.
const SSLSCAN_LEAN = ['--no-fallback', '--no-renegotiation', '--no-compression', '--no-heartbleed', '--no-groups'];

export interface TlsBenchOptions {
  runs: number;
  target: Target;
  progress: (message: string) => void;
}

interface Tool {
  label: string;
  wall: Summary | undefined;
  connections: number | undefined;
  verdict: string;
}

export interface TlsBenchResult {
  runs: number;
  checkIds: string[];
  calibrations: number;
  ours: { cold: Tool; warm: Tool };
  /** tls.* checks by median duration over the cold runs. */
  slowestCold: Array<{ id: string; ms: number }>;
  sslscan: { full: Tool; lean: Tool } | { missing: string };
}

const withBase = (t: Target, port: number): Target => {
  const url = new URL(t.baseUrl);
  url.port = String(port);
  return { ...t, baseUrl: url.origin };
};

async function ourTlsRun(target: Target, cold: boolean): Promise<{ ms: number; results: CheckResult[] }> {
  const { selected } = selectChecks(CHECKS, ['tls.*'], []);
  if (cold) {
    clearCalibrations();
    // As a fresh process would: every TLS context (the CA's trust included) built again.
    clearSecureContexts();
  }
  const started = performance.now();
  const results = await runConformance({
    target,
    others: [],
    expect: { tokenLifetimeS: 86_400, expiryWaitS: 0, clockToleranceS: 2 },
    business: { evaluation: { method: 'POST', body: {} }, ach_transactions: { method: 'POST', body: {} } },
    rateLimit: {
      endpoint: 'tokens.validate',
      maxRps: 1,
      maxRequests: 1,
      recoveryWaitS: 0,
      maxRetryAfterS: 120,
      probingAllowed: false,
    },
    ledger: Ledger.disabled(),
    checks: selected,
    redactor: new Redactor(),
  });
  return { ms: performance.now() - started, results };
}

const verdictOf = (results: readonly CheckResult[]): string => {
  const bad = results.filter((r) => r.status !== 'pass');
  return bad.length === 0
    ? `${results.length}/${results.length} pass`
    : `${bad.map((r) => `${r.id} ${r.status}`).join(', ')}`;
};

/** What sslscan concluded, in a few words: enabled protocols and accepted suites. */
export function sslscanVerdict(out: string): string {
  const enabled = [...out.matchAll(/^(SSLv\d|TLSv1\.\d)\s+enabled/gm)].map((m) => m[1]);
  const accepted = [...out.matchAll(/^(?:Preferred|Accepted)\s+\S+\s+\d+ bits\s+(\S+)/gm)].map((m) => m[1]);
  if (enabled.length === 0 && accepted.length === 0) return 'no protocol found (see sslscan output)';
  return `enabled: ${enabled.join(', ') || 'none'}; accepted: ${accepted.join(', ') || 'none'}`;
}

export async function benchTls(opts: TlsBenchOptions): Promise<TlsBenchResult> {
  const { target } = opts;
  const host = new URL(target.baseUrl).hostname;
  const port = Number(new URL(target.baseUrl).port);
  const checkIds = selectChecks(CHECKS, ['tls.*'], []).selected.map((c) => c.id);

  const sslscan = which('sslscan');
  const args = { full: ['--no-colour'], lean: ['--no-colour', ...SSLSCAN_LEAN] };
  const cold: number[] = [];
  const warm: number[] = [];
  const scans = { full: [] as number[], lean: [] as number[] };
  const scanVerdict = { full: '', lean: '' };
  let lastResults: CheckResult[] = [];
  const coldDurations: Array<Array<{ id: string; ms: number }>> = [];
  // Interleaved, so that whatever else the machine does during the bench falls on every tool alike.
  for (let i = 0; i < opts.runs; i++) {
    opts.progress(
      `tls ${i + 1}/${opts.runs}: tls.* cold, tls.* warm${sslscan ? ', sslscan default, sslscan lean' : ''}`,
    );
    // Cold: a fresh process' first run. Warm: right after, with the calibrations and TLS contexts memoised.
    const c = await ourTlsRun(target, true);
    cold.push(c.ms);
    lastResults = c.results;
    coldDurations.push(c.results.map((r) => ({ id: r.id, ms: r.duration_ms })));
    warm.push((await ourTlsRun(target, false)).ms);
    if (sslscan === undefined) continue;
    for (const kind of ['full', 'lean'] as const) {
      const r = await runCommand(sslscan, [...args[kind], `${host}:${port}`], { timeoutMs: SSLSCAN_TIMEOUT_MS });
      scans[kind].push(r.wallMs);
      scanVerdict[kind] = r.timedOut
        ? `timed out after ${SSLSCAN_TIMEOUT_MS / 1000} s`
        : r.code === 0
          ? sslscanVerdict(r.stdout)
          : `exit ${String(r.code)}: ${r.stderr.trim().split('\n')[0] ?? ''}`;
    }
  }
  // Ours, counted: once more through the relay, not timed.
  const counter = await startConnCounter(host, port);
  let ourConnections: number;
  let relayedVerdict: string;
  try {
    const r = await ourTlsRun(withBase(target, counter.port), true);
    ourConnections = counter.count();
    relayedVerdict = verdictOf(r.results);
  } finally {
    await counter.close();
  }
  const ourVerdict = verdictOf(lastResults);
  const ours = {
    cold: {
      label: 'tls.* checks, cold (calibrations, TLS contexts)',
      wall: summarize(cold),
      connections: ourConnections,
      verdict: ourVerdict,
    },
    warm: {
      label: 'tls.* checks, warm (both memoised)',
      wall: summarize(warm),
      connections: ourConnections,
      verdict: relayedVerdict === ourVerdict ? ourVerdict : `${ourVerdict}; via relay: ${relayedVerdict}`,
    },
  };
  const calibrations = LEGACY_VERSION_CASES.length + ALLOWED_SUITE_CASES.length + OTHER_SUITE_CASES.length;
  const slowestCold = slowest(coldDurations, 6);

  if (sslscan === undefined)
    return {
      runs: opts.runs,
      checkIds,
      calibrations,
      ours,
      slowestCold,
      sslscan: { missing: 'sslscan not installed' },
    };

  // sslscan, counted: once more per kind through the relay, not timed.
  const counted = async (kind: 'full' | 'lean'): Promise<number> => {
    const relay = await startConnCounter(host, port);
    try {
      await runCommand(sslscan, [...args[kind], `${host}:${relay.port}`], { timeoutMs: SSLSCAN_TIMEOUT_MS });
      return relay.count();
    } finally {
      await relay.close();
    }
  };
  return {
    runs: opts.runs,
    checkIds,
    calibrations,
    ours,
    slowestCold,
    sslscan: {
      full: {
        label: 'sslscan (default scan)',
        wall: summarize(scans.full),
        connections: await counted('full'),
        verdict: scanVerdict.full,
      },
      lean: {
        label: 'sslscan (protocols, ciphers, certificate)',
        wall: summarize(scans.lean),
        connections: await counted('lean'),
        verdict: scanVerdict.lean,
      },
    },
  };
}

export function tlsSection(r: TlsBenchResult): Section {
  const tools: Tool[] = [r.ours.cold, r.ours.warm];
  if (!('missing' in r.sslscan)) tools.push(r.sslscan.full, r.sslscan.lean);
  const notes = [
    `tls.* = ${r.checkIds.join(', ')}; run together as \`check --only 'tls.*'\` runs them (concurrently).`,
    `Ours: ${r.ours.cold.connections ?? '?'} connections to the target (${r.calibrations} matrix handshakes, 1 ordinary handshake both certificate checks read, 1 plain-HTTP request), plus a calibration handshake against a throwaway loopback server for each matrix case the target did not accept (5 of the ${r.calibrations} on a conformant target; cold runs only; not counted above).`,
    `Per check, cold, median: ${r.slowestCold.map((x) => `${x.id} ${ms(x.ms)}`).join(', ')}.`,
    'sslscan: it does not print how many handshakes it made; the count is the TCP connections it opened to the target, through a counting relay (a separate, untimed run).',
  ];
  if ('missing' in r.sslscan) {
    notes.push(`${r.sslscan.missing}; apt-get install -y sslscan for the comparison.`);
  } else {
    const ourMed = r.ours.cold.wall?.median;
    notes.push(
      `Ratio tls.* cold / sslscan default = ${ratio(ourMed, r.sslscan.full.wall?.median)}; tls.* cold / sslscan lean = ${ratio(ourMed, r.sslscan.lean.wall?.median)}; tls.* warm / sslscan lean = ${ratio(r.ours.warm.wall?.median, r.sslscan.lean.wall?.median)} (below 1: ours is faster).`,
      'sslscan runs its handshakes one after another and includes its own process start; ours are concurrent within an already running process.',
    );
  }
  return {
    title: `2. TLS matrix: the tls.* checks vs sslscan, same emulator (median of ${r.runs})`,
    headers: ['what', 'median', 'min', 'max', 'connections', 'conclusion'],
    rows: tools.map((t) => [
      t.label,
      ms(t.wall?.median ?? Number.NaN),
      ms(t.wall?.min ?? Number.NaN),
      ms(t.wall?.max ?? Number.NaN),
      t.connections === undefined ? 'unknown' : String(t.connections),
      t.verdict,
    ]),
    notes,
  };
}
