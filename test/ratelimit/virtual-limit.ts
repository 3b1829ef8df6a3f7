// A rate-limited endpoint on a virtual clock, for running the whole probe (discover) in
// milliseconds and the same way every time: virtual time jumps to the next timer or answer once
// every microtask has settled, so the probe's own order of events is kept while no real time
// passes. Answers take 2–12 virtual ms, so they arrive out of order as on a real connection pool.

import type { Exchange } from '../../src/http/exchange.js';
import { adjacentBefore, type ProbeCalls } from '../../src/ratelimit/calls.js';
import { virtualClock, type Clock } from '../../src/time/clock.js';
import { createLimiter, type Limits } from '../../src/ratelimit/limiters/index.js';
import { advertisementListHeaders, type QuotaState } from '../../src/spec/ratelimit-fields.js';
import type { Claim } from '../../src/emulator/profiles/ratelimit-headers.js';
import { discover, type DiscoverOptions } from '../../src/ratelimit/discover.js';
import type { Estimate } from '../../src/ratelimit/types.js';
import { seeded } from './seeded.js';
import { IDLE_LOAD } from '../../src/ratelimit/probe/own-load.js';

/** Wake-ups a pass for a clock nothing real runs beside (src/time/clock.ts virtualClock). */
export const VIRTUAL_WAKE_UPS_PER_PASS = 32;

/**
 * Decides one arrival at `nowMs`: undefined lets it through, a number refuses it and says in how
 * many ms it would pass. `announce`: the RateLimit headers its answer carries (advertising()).
 */
export type Limiter = ((nowMs: number) => number | undefined) & {
  announce?: (nowMs: number) => Record<string, string>;
  /**
   * How long the answer to the request it last let through is held, ms: a queue's wait for its
   * turn (fromModel of a queue model), or a stalled front's on a busy machine.
   */
  queuedMs?: number;
};

/** GCRA, what a token bucket is in arrival times: `rps` sustained, `burst` at once, full at t = 0. */
export function gcra(rps: number, burst: number): Limiter {
  const emissionMs = 1000 / rps;
  let theoretical = 0;
  return (now) => {
    const next = Math.max(theoretical, now) + emissionMs;
    if (next - now > burst * emissionMs) return next - now - burst * emissionMs;
    theoretical = next;
    return undefined;
  };
}

/** `perWindow` requests in each whole second. */
export function fixedWindow(perWindow: number): Limiter {
  let current = -1;
  let used = 0;
  return (now) => {
    const w = Math.floor(now / 1000);
    if (w !== current) [current, used] = [w, 0];
    if (used >= perWindow) return (w + 1) * 1000 - now;
    used++;
    return undefined;
  };
}

export const noLimit = (): Limiter => () => undefined;

export interface VirtualEndpoint {
  /** Makes the limit (each client with a limit of its own gets a fresh one). */
  limiter: () => Limiter;
  /** What a refusal answers: 429, or a non-conformant 503. */
  status: number;
  /** Refusals say when to come back: Retry-After, or a RateLimit-Reset with RateLimit-Limit. */
  announces?: 'retry-after' | 'reset';
  /** A second client: limited with the first (shared) or on its own (own). */
  second?: 'shared' | 'own';
  /** Refusals are answered this many ms late (a gateway that slows down refused clients); unset: as fast as any answer. */
  refusalLatencyMs?: number;
  /**
   * A network between probe and limiter (toxiproxy's latency toxic, virtually): each way `oneWayMs`
   * ± `jitterMs`, uniform and seeded, so the limiter decides a request when it arrives, not when it
   * was sent, and requests sent close together can arrive out of order. `stretched`: a heavy tail on
   * top, as a busy machine adds to toxiproxy's round trips: one request in `every` (seeded, a
   * stream of its own) has one leg, there or back, `extraMs` longer.
   */
  network?: {
    oneWayMs: number;
    jitterMs: number;
    seed?: number;
    stretched?: { every: number; extraMs: number; fromMs?: number; seed?: number };
    /**
     * Connections opened as the client needs them (a pool: a request that finds none idle opens
     * one), each paying its TLS handshake, one round trip more, before its first request reaches
     * the limiter: a drain's requests then arrive up to a round trip later than their send times
     * say (behind toxiproxy the drain's cold requests took ~210 ms, the warm ones ~100). The set-up
     * requests opened one.
     */
    handshakes?: true;
  };
  /**
   * Every answer leaves `meanMs` ± `jitterMs` (uniform, seeded) after its request was decided, the
   * way there instant: the emulator's `latency` profile, virtually; `acceptedOnly`: refusals
   * answered at once, as the `slow-business` profile's limiter refuses before the work.
   */
  answerDelay?: { meanMs: number; jitterMs: number; seed?: number; acceptedOnly?: boolean };
  /**
   * The probe's machine overloaded (other heavy work on its cores): every timer of the probe fires
   * up to `lateMs` late, every request leaves up to `lateMs` after the probe stamped it sent, and
   * every answer is handed to the probe up to `lateMs` after it came back (uniform, seeded).
   */
  busy?: { lateMs: number; seed?: number };
  /**
   * The probe's process stalled now and then, whole (a loaded machine's scheduler, a collection):
   * stalls `minMs`–`maxMs` long start on average every `everyMs` (seeded, from `fromMs`). Nothing of
   * the probe runs during one: a timer due within it fires at its end, and an answer back within it
   * is handed to the probe there. `limiter`: the limiter's process stalls with it (the test's
   * emulator beside the CLI on a machine that has no core for either), deciding what reached it
   * within a stall at its end. `probe: false`: the limiter's process alone stalls (the emulator in a
   * test's busy process, the CLI probing it from its own): the probe keeps its pace meanwhile.
   */
  stalls?: {
    everyMs: number;
    minMs: number;
    maxMs: number;
    seed?: number;
    fromMs?: number;
    limiter?: boolean;
    probe?: false;
  };
  /**
   * The service takes one request every `everyMs` at most (a single worker, or its process starved
   * of CPU beside k6 and whole CLI runs): requests wait in line, refused ones too, and the limiter
   * decides each when its turn comes. A drain paced at 200 req/s reaches the limiter at 1000 / everyMs.
   */
  served?: { everyMs: number };
  /**
   * A limiter in front of a service that takes one request every `everyMs` at most (a gateway
   * before a single worker): what the limiter lets through waits in line at the service, what it
   * refuses is answered at once. Its acceptances leave one `everyMs` apart, as a queue's do.
   */
  servedBehind?: { everyMs: number };
  /**
   * The probe's clock (and the answers' stamps) reads this much more than the limiter's: a wall
   * clock, against which a front announcing epoch seconds (httprateFront's `epochMs`) is read. A
   * whole number of seconds, so the limiter's windows keep their place within the second.
   */
  epochMs?: number;
  /**
   * The CLI's preflight request, this many ms before the probe (negative): the limit counts it,
   * and the calls count it among their set-up requests as the stage does (src/ratelimit/calls.ts).
   */
  preflightMs?: number;
}

export interface VirtualTime {
  /** Virtual milliseconds since the start. */
  now(): number;
  /** Runs `fire` when virtual time reaches `when` (timers due at once run in the order they were set). */
  at(when: number, fire: () => void): void;
  /** Ends virtual time. */
  stop(): void;
}

/**
 * The virtual clock from 0 (src/time/clock.ts): it jumps to the next timer once every microtask has
 * settled. Nothing real runs beside it here (no socket, no real timer), so it wakes many sleepers a
 * pass of the event loop: a virtual probe in 18 ms where it took 32.
 */
export function virtualTime(): VirtualTime {
  const clock = virtualClock(0, VIRTUAL_WAKE_UPS_PER_PASS);
  let stopped = false;
  return {
    now: clock.now,
    at: (when, fire) => void clock.sleep(when - clock.now()).then(() => stopped || fire()),
    stop: () => void (stopped = true),
  };
}

/** The clock and calls for discover(); `stop` ends virtual time (call it when the probe returned). */
export function virtualWorld(endpoint: VirtualEndpoint): { clock: Clock; calls: ProbeCalls; stop: () => void } {
  const { now, at, stop } = virtualTime();
  // What the probe reads (its clock, the answers' stamps); the limiter and the timers go on `now`.
  const epochMs = endpoint.epochMs ?? 0;
  const probeNow = () => now() + epochMs;
  const { busy } = endpoint;
  const stalled = seeded(busy?.seed ?? 1);
  const late = () => (busy ? stalled() * busy.lateMs : 0);
  const stalledTo = stalledUntil(endpoint.stalls);
  // The probe's own process: stalled with the limiter's, unless only the limiter's stalls.
  const resumed = endpoint.stalls?.probe === false ? (t: number) => t : stalledTo;
  const clock: Clock = {
    now: probeNow,
    sleep: (ms) => new Promise<void>((resolve) => at(resumed(now() + Math.max(0, ms) + late()), resolve)),
  };

  let sent = 0;
  const { network } = endpoint;
  const random = seeded(network?.seed ?? 1);
  const way = () => (network ? network.oneWayMs + (2 * random() - 1) * network.jitterMs : 0);
  const tail = network?.stretched;
  const drawTail = seeded(tail?.seed ?? 1);
  // Which leg of a request is stretched, if any: drawn once per request, apart from the jitter.
  const stretchedLeg = (): 'there' | 'back' | undefined => {
    if (!tail || now() < (tail.fromMs ?? 0) || drawTail() * tail.every >= 1) return undefined;
    return drawTail() < 0.5 ? 'there' : 'back';
  };
  const extraOn = (leg: 'there' | 'back' | undefined, on: 'there' | 'back') => (leg === on ? tail!.extraMs : 0);
  let openConnections = 1;
  let busyConnections = 0;
  // A request that finds every open connection busy opens one: its handshake's round trip first.
  const handshakeMs = () => {
    if (busyConnections++ < openConnections || !network?.handshakes) return 0;
    openConnections++;
    return way() + way();
  };
  const { answerDelay } = endpoint;
  const delayed = seeded(answerDelay?.seed ?? 1);
  const answerMs = () => (answerDelay ? answerDelay.meanMs + (2 * delayed() - 1) * answerDelay.jitterMs : 0);
  // A limiter stalled with the probe decides what reached it within a stall at the stall's end.
  const decidedAt = endpoint.stalls?.limiter ? stalledTo : (t: number) => t;
  const reached = (limiter: Limiter): Promise<Exchange> => {
    if (!network)
      return decidedAt(now()) === now()
        ? decide(limiter, 0)
        : new Promise((resolve) => at(decidedAt(now()), () => void decide(limiter, 0).then(resolve)));
    const leg = stretchedLeg();
    const thereMs = handshakeMs() + way() + extraOn(leg, 'there');
    return new Promise<Exchange>((resolve) =>
      at(decidedAt(now() + thereMs), () => void decide(limiter, way() + extraOn(leg, 'back')).then(resolve)),
    ).finally(() => void busyConnections--);
  };
  // Late out of the machine and late back into the probe's hands, when it is busy or stalled.
  const handed = (exchange: Exchange): Promise<Exchange> =>
    new Promise((resolve) => at(resumed(now() + late()), () => resolve({ ...exchange, receivedAt: probeNow() })));
  // A single worker: each request's turn starts when it arrives or when the one before it is done.
  const workerLine = (everyMs: number) => {
    let lastTurn = -Infinity;
    return (t: number) => (lastTurn = Math.max(t, lastTurn + everyMs));
  };
  // In front of the limiter (served): the limiter decides each request at its turn.
  const turnAt = endpoint.served ? workerLine(endpoint.served.everyMs) : (t: number) => t;
  // Behind it (servedBehind): a request let through is answered once its turn is done.
  const behind = endpoint.servedBehind ? workerLine(endpoint.servedBehind.everyMs) : undefined;
  const workerWaitMs = (waitMs: number | undefined): number =>
    behind && waitMs === undefined ? behind(now()) + endpoint.servedBehind!.everyMs - now() : 0;
  const caller = (limiter: Limiter) => (): Promise<Exchange> =>
    endpoint.served
      ? new Promise<Exchange>((resolve) => at(turnAt(now()), () => void reached(limiter).then(resolve)))
      : busy
        ? new Promise<Exchange>((resolve) => at(now() + late(), () => void reached(limiter).then(resolve))).then(handed)
        : endpoint.stalls
          ? reached(limiter).then(handed)
          : reached(limiter);
  const decide = (limiter: Limiter, backMs: number): Promise<Exchange> =>
    new Promise((resolve) => {
      const waitMs = limiter(now());
      const announced = limiter.announce?.(now()) ?? {};
      const latencyMs =
        waitMs !== undefined && endpoint.refusalLatencyMs !== undefined
          ? endpoint.refusalLatencyMs
          : 2 + ((sent++ * 7) % 11);
      // A queue answers a request it let through once its turn came (nginx without nodelay).
      const queuedMs = waitMs === undefined ? (limiter.queuedMs ?? 0) : 0;
      const delayMs =
        (answerDelay?.acceptedOnly && waitMs !== undefined ? 0 : answerMs()) + queuedMs + workerWaitMs(waitMs);
      at(now() + latencyMs + backMs + delayMs, () => {
        const headers: Record<string, string> = { ...announced };
        const seconds = String(Math.max(1, Math.ceil((waitMs ?? 0) / 1000)));
        if (waitMs !== undefined && endpoint.announces === 'retry-after') headers['retry-after'] = seconds;
        if (waitMs !== undefined && endpoint.announces === 'reset')
          Object.assign(headers, { 'ratelimit-reset': seconds, 'ratelimit-limit': '1' });
        const status = waitMs === undefined ? 200 : endpoint.status;
        resolve({
          request: 'GET /tokens/validate',
          status,
          headers,
          text: '',
          json: undefined,
          truncated: false,
          durationMs: latencyMs,
          // On the probe's clock, as the service client stamps them.
          sentAt: probeNow() - latencyMs,
          receivedAt: probeNow(),
          rateLimitWaits: 0,
          echoesSecret: false,
        });
      });
    });
  const primary = endpoint.limiter();
  const preflight = endpoint.preflightMs === undefined ? [] : [endpoint.preflightMs];
  for (const at of preflight) primary(at);
  // The two set-up requests the calls count as overhead (a token, the validate method) reach the
  // limit too, as on a real service, just before the probe starts.
  primary(-2);
  primary(-1);
  const second = endpoint.second === 'own' ? endpoint.limiter() : primary;
  const calls: ProbeCalls = {
    endpoint: 'tokens.validate',
    primary: caller(primary),
    overhead: { sent: adjacentBefore(preflight, -2) + 2, limited: 0 },
    ...(endpoint.second ? { second: caller(second) } : {}),
  };
  return {
    clock,
    calls,
    stop,
  };
}

/**
 * When a process that stalls as `stalls` says is running again at `t`: `t`, or the end of the
 * stall `t` falls in (the identity without stalls). The stalls are drawn once, over 10 minutes.
 */
function stalledUntil(stalls: VirtualEndpoint['stalls']): (t: number) => number {
  if (!stalls) return (t) => t;
  const random = seeded(stalls.seed ?? 1);
  const spans: Array<{ from: number; to: number }> = [];
  for (let t = stalls.fromMs ?? 0; t < 600_000;) {
    // Exponential gaps: stalls come at random, on average `everyMs` apart.
    const from = t - stalls.everyMs * Math.log(1 - random());
    const to = from + stalls.minMs + random() * (stalls.maxMs - stalls.minMs);
    spans.push({ from, to });
    t = to;
  }
  return (t) => spans.find((s) => s.from <= t && t < s.to)?.to ?? t;
}

/** The whole probe (discover) against `endpoint` on virtual time: max_rps 200, 3,000 requests, 60 s unless told. */
export async function discoverVirtual(
  endpoint: VirtualEndpoint,
  options: Partial<Omit<DiscoverOptions, 'calls' | 'clock'>> = {},
): Promise<Estimate> {
  const world = virtualWorld(endpoint);
  try {
    return await discover({
      calls: world.calls,
      clock: world.clock,
      maxRps: 200,
      maxRequests: 3000,
      maxDurationS: 60,
      // The virtual machine is the model's: this process's own load (the simulation's) says nothing of it.
      ownLoad: () => IDLE_LOAD,
      // The CLI's default request timeout, as the stage passes it: in flight no more than a line clears in half of it.
      requestTimeoutMs: 10_000,
      ...options,
    });
  } finally {
    world.stop();
  }
}

/** Any limiter model of src/ratelimit/limiters (or a set of them), as the emulator enforces it. */
export function fromModel(model: Limits): Limiter {
  const limiter = createLimiter(model);
  const decide: Limiter = (now) => {
    const d = limiter.take(now);
    if (d.ok) decide.queuedMs = d.delayMs ?? 0;
    return d.ok ? undefined : d.retryAfterS * 1000;
  };
  return decide;
}

/**
 * A limiter model that announces its quota on every answer as the emulator's `ratelimit-headers`
 * profile does (`claim`: what it announces instead, as a misconfigured gateway would); a set of
 * limits announces each one, as an IETF list or in the fields `fields` writes (Kong's).
 */
export function advertising(
  model: Limits,
  claim: Claim = (real) => real,
  fields: (all: readonly QuotaState[], nearest: QuotaState) => Record<string, string> = advertisementListHeaders,
): Limiter {
  const limiter = createLimiter(model);
  const decide: Limiter = (now) => {
    const d = limiter.take(now);
    return d.ok ? undefined : d.retryAfterS * 1000;
  };
  // The answer's headers say the quota as it was right after this request was decided.
  decide.announce = (now) => {
    const quota = limiter.quota?.(now);
    const all = limiter.quotas?.(now) ?? (quota ? [quota] : []);
    return quota ? fields(all.map(claim), claim(quota)) : {};
  };
  return decide;
}

/**
 * HAProxy's `http_req_rate(<period>)` in a stick table: the simulator's own model of it
 * (src/ratelimit/limiters/interpolated-window.ts). `countsRefused`: the usual recipe (track every
 * request); otherwise only admitted requests are counted. HAProxy sends no Retry-After: a refusal
 * says "a period".
 */
export function haproxyRate(limit: number, periodMs: number, countsRefused: boolean): Limiter {
  const limiter = createLimiter({
    kind: 'sliding-window',
    limit,
    period_s: periodMs / 1000,
    counts_refused: countsRefused,
    counter: 'interpolated',
  });
  return (now) => (limiter.take(now).ok ? undefined : periodMs);
}

/**
 * `inner`, with the set-up requests (virtualWorld sends them at -2 and -1 ms) sent `leadMs`
 * earlier: on a busy machine the drain starts long after the set-up, so a counter with periods
 * (HAProxy) opened its period well before the drain.
 */
export function openedEarlier(inner: Limiter, leadMs: number): Limiter {
  return (now) => inner(now < 0 ? now - leadMs : now);
}

/** A wall clock's epoch for fronts that announce epoch seconds: a whole second, 27 Nov 2026. */
export const WALL_EPOCH_MS = 1_795_000_000_000;

/**
 * go-chi/httprate as the real one runs behind toxiproxy (test/integration/ratelimit-network-kinds.test.ts):
 * epoch resets and Retry-After, its windows begun `startedBeforeMs` before the probe, across 50 ± 10 ms
 * each way (jitter `seed`), the probe's machine `lateMs` late (busy seed `busySeed`, the jitter's by default).
 */
export function httprateAcross(
  limit: number,
  windowS: number,
  startedBeforeMs: number,
  o: { seed: number; lateMs?: number; busySeed?: number },
): VirtualEndpoint {
  return {
    limiter: () => httprateFront(limit, windowS, startedBeforeMs, WALL_EPOCH_MS),
    status: 429,
    announces: 'retry-after',
    epochMs: WALL_EPOCH_MS,
    network: { oneWayMs: 50, jitterMs: 10, seed: o.seed },
    ...(o.lateMs ? { busy: { lateMs: o.lateMs, seed: o.busySeed ?? o.seed } } : {}),
  };
}

/**
 * go-chi/httprate v0.16.1's `Limit(limit, window)` as a chi service answers: its sliding-window
 * counter (limiters/sliding-counter.ts) with its windows `startedBeforeMs` before the probe's clock
 * began (v0.16.1 aligns them to the limiter's start, not the wall clock: the front starts just
 * before the probe), `X-RateLimit-Limit/-Remaining/-Reset` on every answer, the reset the window's
 * end in whole epoch seconds, rounded down (Go's Time.Unix); with `announces: 'retry-after'`, a
 * Retry-After of the whole window on refusals, as httprate sends.
 */
export function httprateFront(limit: number, windowS: number, startedBeforeMs: number, epochMs?: number): Limiter {
  const windowMs = windowS * 1000;
  const phaseS = (windowMs - (startedBeforeMs % windowMs)) / 1000;
  const counter = createLimiter({
    kind: 'sliding-counter',
    limit,
    window_s: windowS,
    phase_s: phaseS,
    counts_refused: false,
  });
  const decide: Limiter = (now) => {
    const d = counter.take(now);
    return d.ok ? undefined : d.retryAfterS * 1000;
  };
  decide.announce = (now) => {
    const quota = counter.quota?.(now);
    const endMs = now + (quota?.resetS ?? 0) * 1000;
    // Epoch seconds on the virtual clock (its 0 is epoch 0), as a client reads them: seconds from now.
    return {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.round(quota?.remaining ?? 0)),
      // With `epochMs` (the world's, virtualWorld's `epochMs`), epoch seconds as httprate sends them.
      'x-ratelimit-reset':
        epochMs === undefined
          ? Math.max(0, Math.floor(endMs / 1000) - now / 1000).toFixed(3)
          : String(Math.floor((endMs + epochMs) / 1000)),
    };
  };
  return decide;
}
