// The client checks and their folding as pure functions of recorded runs: no process, no clock.

import { describe, expect, it } from 'vitest';
import { judgeClient } from '../../src/client/judge.js';
import { check as rateLimitWait } from '../../src/client/checks/rate-limit-wait.js';
import { check as tokenReuse } from '../../src/client/checks/token-reuse.js';
import { check as exitCode } from '../../src/client/checks/exit-code.js';
import type { ProcessOutcome, RecordedRequest, ClientRunRecord } from '../../src/client/record.js';

const request = (atMs: number, status: number, extra: Partial<RecordedRequest> = {}): RecordedRequest => ({
  atMs,
  answeredMs: atMs,
  method: 'POST',
  path: '/v1/evaluation',
  queryNames: [],
  contentType: 'application/json',
  bodyShape: '{}',
  headers: {},
  status,
  bearer: { scheme: 'Bearer', token: 'tk_00000001', fetchedMs: 0, expiresMs: 60_000 },
  secretIn: [],
  ...extra,
});

const record = (
  scenario: string,
  requests: RecordedRequest[],
  exitCode = 0,
  process: Partial<ProcessOutcome> = {},
): ClientRunRecord => ({
  scenario,
  requests,
  hellos: requests.length === 0 ? [] : [{ tls: true, versions: ['TLSv1.3'], suites: ['TLS_AES_128_GCM_SHA256'] }],
  process: { exitCode, signal: null, stopped: null, stoppedMs: null, durationMs: 1000, ...process },
  secretPrinted: false,
  limits: { timeLimitS: 30, maxRequests: 400, stallAfterMs: 5_000 },
});

/** 429s without Retry-After at the given gaps, then a success. */
const backoff = (gaps: number[]): RecordedRequest[] => {
  const out: RecordedRequest[] = [];
  let t = 0;
  for (const gap of gaps) {
    out.push(request(t, 429));
    t += gap;
  }
  out.push(request(t, 200));
  return out;
};

describe('client.rate-limit-wait', () => {
  it.each([
    { gaps: [250, 500, 1000], status: 'pass', why: 'exponential' },
    { gaps: [200, 340, 600], status: 'pass', why: 'exponential with jitter' },
    { gaps: [300, 420], status: 'pass', why: 'two waits: too few to judge growth' },
    { gaps: [250, 500, 1000, 2000, 4000], status: 'pass', why: 'a long exponential run' },
    { gaps: [250, 40, 500], status: 'pass', why: 'full jitter drew one short wait' },
    {
      gaps: [3, 120, 90, 700, 15, 1300, 2500, 400, 3900],
      status: 'pass',
      why: 'full jitter, short waits among long ones',
    },
    { gaps: [120, 170, 150, 330, 210, 600, 450, 1200], status: 'pass', why: 'decorrelated jitter' },
    { gaps: [200, 200, 210, 230, 200, 260, 205, 200], status: 'fail', why: 'fixed waits with timer jitter' },
    {
      gaps: [200, 200, 200, 200, 280, 200, 200, 200, 200],
      status: 'fail',
      why: 'fixed waits, one stretched by a busy machine',
    },
    {
      gaps: [210, 204, 204, 204, 204, 204, 203, 320, 225, 203, 207, 206, 205, 207, 202],
      status: 'fail',
      why: 'fixed waits, one stretched past 1.5× by a busy machine',
    },
    { gaps: Array<number>(12).fill(60), status: 'fail', why: 'a retry every 60 ms: a storm' },
    { gaps: Array<number>(30).fill(1), status: 'fail', why: 'retrying in a loop' },
  ])('$why: $status', ({ gaps, status }) => {
    expect(rateLimitWait.judge(record('s', backoff(gaps))).status).toBe(status);
  });

  it('judges Retry-After from the moment the 429 was answered, with 30 ms of timer slack', () => {
    const limited = request(0, 429, { answeredMs: 5, retryAfter: '1' });
    expect(rateLimitWait.judge(record('s', [limited, request(980, 200)])).status).toBe('pass');
    expect(rateLimitWait.judge(record('s', [limited, request(900, 200)])).status).toBe('fail');
  });
});

describe('judgeClient', () => {
  const fetch = (atMs: number, expiresMs: number) =>
    request(atMs, 200, { path: '/tokens', issued: { token: `tk_${atMs}`, expiresMs } });

  it('folds the runs of one check into its worst status, labelling message and evidence by scenario', () => {
    const results = judgeClient([
      record('steady', [fetch(0, 60_000), request(10, 200)]),
      record('slow-business', [fetch(0, 60_000), request(10, 200)], 3),
    ]);
    const exit = results.find((r) => r.id === 'client.exit-code')!;
    expect(exit.status).toBe('fail');
    expect(exit.message).toMatch(/^slow-business: the client exited with code 3/);
    expect(exit.evidence[0]!.request).toMatch(/^\[slow-business\] /);
  });

  it('reports a failed should check as a warn, and skips only when every run skips', () => {
    const perCall = [fetch(0, 60_000), request(5, 200), fetch(100, 60_000), request(105, 200)];
    expect(tokenReuse.judge(record('s', perCall)).status).toBe('warn');
    const results = judgeClient([record('steady', perCall)]);
    expect(results.find((r) => r.id === 'client.token-reuse')!.status).toBe('warn');
    expect(results.find((r) => r.id === 'client.rate-limit-wait')!.status).toBe('skip');
  });
});

describe('client.exit-code', () => {
  /** Stopped at the 30 s limit (stall after 5 s of quiet in these records). */
  const atLimit: Partial<ProcessOutcome> = {
    exitCode: null,
    signal: 'SIGTERM',
    stopped: 'time-limit',
    stoppedMs: 30_000,
    durationMs: 30_050,
  };
  const calls = (...atMs: number[]) => atMs.map((t) => request(t, 200, { answeredMs: t + 5 }));
  it.each([
    { why: 'exited 0 by itself', requests: calls(10), exit: 0, process: {}, status: 'pass', says: /^exited 0/ },
    {
      why: 'exited 0 without a request: nothing tested',
      requests: [],
      exit: 0,
      process: {},
      status: 'skip',
      says: /without a request/,
    },
    {
      why: 'exited non-zero by itself: a crash',
      requests: calls(10),
      exit: 3,
      process: {},
      status: 'fail',
      says: /exited with code 3/,
    },
    {
      why: 'killed by a signal the harness did not send: a crash',
      requests: calls(10),
      exit: 0,
      process: { exitCode: null, signal: 'SIGSEGV' },
      status: 'fail',
      says: /killed by SIGSEGV, a signal the harness did not send/,
    },
    {
      why: 'stopped at the limit while still calling',
      requests: calls(29_800),
      exit: 0,
      process: atLimit,
      status: 'pass',
      says: /stopped at the 30 s time limit while still working \(its last request 0\.2 s before; 5\.0 s without one is a stall/,
    },
    {
      why: 'stopped at the limit waiting on an answer',
      requests: [request(24_000, 200, { answeredMs: 31_000 })],
      exit: 0,
      process: atLimit,
      status: 'pass',
      says: /still working \(its last request 0\.0 s before/,
    },
    {
      why: 'stopped at the limit just within the stall bound',
      requests: calls(24_995),
      exit: 0,
      process: atLimit,
      status: 'pass',
      says: /still working/,
    },
    {
      why: 'stopped at the limit after a quiet longer than the stall bound',
      requests: calls(100, 20_000),
      exit: 0,
      process: atLimit,
      status: 'fail',
      says: /stalled: no request in the last 10\.0 s \(5\.0 s without one is a stall in this scenario\)/,
    },
    {
      why: 'stopped at the limit having never called',
      requests: [],
      exit: 0,
      process: atLimit,
      status: 'fail',
      says: /stalled: it made no request at all/,
    },
    {
      why: 'stopped as a flood',
      requests: calls(10),
      exit: 0,
      process: { exitCode: null, signal: 'SIGTERM', stopped: 'flood', stoppedMs: 900 },
      status: 'fail',
      says: /flood/,
    },
    {
      why: 'stopped for printing its secret',
      requests: [],
      exit: 0,
      process: { exitCode: null, signal: 'SIGTERM', stopped: 'secret-printed', stoppedMs: 100 },
      status: 'fail',
      says: /printed its client secret/,
    },
    {
      why: 'interrupted by the user: not judged',
      requests: calls(10),
      exit: 0,
      process: { exitCode: null, signal: 'SIGTERM', stopped: 'interrupted', stoppedMs: 500 },
      status: 'skip',
      says: /interrupted/,
    },
  ] as const)('$why: $status', ({ requests, exit, process, status, says }) => {
    const j = exitCode.judge(record('steady', [...requests], exit, process));
    expect({ status: j.status, message: j.message }).toEqual({ status, message: expect.stringMatching(says) });
  });

  it('judges a run without a request by how the process ended only: the request checks leave it out', () => {
    const silentCrash = record('short-token-lifetime', [], 1);
    const results = Object.fromEntries(
      judgeClient([record('steady', [request(10, 200)]), silentCrash]).map((r) => [r.id, r]),
    );
    expect(results['client.exit-code']!.status).toBe('fail');
    expect(results['client.exit-code']!.message).toMatch(/^short-token-lifetime: the client exited with code 1/);
    expect(results['client.bearer']!.status).toBe('pass');
    expect(results['client.tls13']!.status).toBe('pass');
    // No run with a request: a check of requests skips, never fails on nothing.
    const none = Object.fromEntries(judgeClient([silentCrash]).map((r) => [r.id, r.status]));
    expect(none).toMatchObject({
      'client.token-request': 'skip',
      'client.tls13': 'skip',
      'client.exit-code': 'fail',
      'client.secret-kept': 'pass',
    });
  });
});
