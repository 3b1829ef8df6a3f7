// The fleet simulator: N client instances (instance.ts) against one limiter model, in simulated
// time. Discrete events, one pending per instance (its next attempt, its request reaching the
// limiter half a round trip later, its answer a round trip later), taken in time order from a heap;
// seeded, so the same inputs always give the same figures, and fast: no clock, no I/O.

import { createLimiter, type Limiter, type Limits } from '../limiters/index.js';
import { fleetFigures, type FleetFigures } from './figures.js';
import { EventHeap } from './heap.js';
import { ClientInstance, type Verdict } from './instance.js';
import { instanceRandom, instanceSetup, type FleetRun } from './run-setup.js';

export interface SimulationSetup extends FleetRun {
  /** One limit, or a set every one of which must admit a request. */
  limiter: Limits;
  /** 'shared': the fleet meets one limiter; 'per-instance': each instance has its own (a per-token limit). */
  sharing: 'shared' | 'per-instance';
  /** One request's round trip, ms (the service's latency as the probe or k6 measured it). */
  latency_ms: number;
  /**
   * 'end': the run ends when the arrivals stop (goodput, 429 rate, p99); 'drained': it runs on until
   * every queue is empty, for the time to drain a backlog, at most max_s.
   */
  until: 'end' | 'drained';
  max_s?: number;
  /**
   * Requests the shared limiter saw before the run, ms (negative): a real run fetches its token
   * through the same limiter just before it starts, and a window's count or a period's start
   * depends on it.
   */
  earlier_requests_ms?: readonly number[];
  /**
   * How late an instance acts after a wait, ms: a real client's sleeps overrun (a busy machine's
   * by milliseconds), which delays every paced call and retry; 0 (the default) for a sizing.
   */
  wake_late_ms?: number;
}

export interface SimulationResult extends FleetFigures {
  /** 'drained' runs: seconds until the last logical call finished; null when the queues were not empty by max_s. */
  drained_s: number | null;
  /** The event budget ran out before the run's end (figures cover what was simulated). */
  truncated: boolean;
}

/** Bounds one run's work whatever the inputs: a few million events are a second or two. */
export const MAX_EVENTS = 3_000_000;
export const DEFAULT_MAX_S = 600;

interface Event {
  at: number;
  seq: number;
  instance: number;
  kind: 'wake' | 'arrive' | 'answer';
}

export function simulate(setup: SimulationSetup): SimulationResult {
  const n = setup.instances;
  const instances: ClientInstance[] = [];
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const random = instanceRandom(setup, i);
    const queue = instanceSetup(setup, i, random);
    // An instance whose first call would come after the run does nothing in it: 100,000 instances
    // sharing 50 req/s are mostly such, and building them would cost more than the whole run.
    if (queue.backlog === 0 && !(queue.rate_rps > 0 && queue.phase_ms < queue.arrivals_until_ms)) continue;
    instances.push(new ClientInstance(queue, random, latencies));
  }
  const shared = createLimiter(setup.limiter);
  for (const at of setup.earlier_requests_ms ?? []) shared.take(at);
  const limiters: Limiter[] = setup.sharing === 'shared' ? [] : instances.map(() => createLimiter(setup.limiter));
  const verdicts: Verdict[] = new Array<Verdict>(instances.length);
  const stopMs = setup.until === 'end' ? setup.duration_s * 1000 : (setup.max_s ?? DEFAULT_MAX_S) * 1000;
  const half = Math.max(0, setup.latency_ms) / 2;
  const late = Math.max(0, setup.wake_late_ms ?? 0);

  const heap = new EventHeap<Event>();
  let seq = 0;
  const wake = (i: number, nowMs: number) => {
    const next = instances[i]!.nextMs();
    // An instance that has to wait wakes late; one with its next attempt due acts at once.
    const at = next === null ? null : next > nowMs ? next + late : nowMs;
    // An instance stops acting at the run's end; what it has in flight still gets its answer.
    if (at !== null && at < stopMs) heap.push({ at, seq: seq++, instance: i, kind: 'wake' });
  };
  for (let i = 0; i < instances.length; i++) wake(i, 0);

  let events = 0;
  for (let e = heap.pop(); e !== undefined; e = heap.pop()) {
    if (++events > MAX_EVENTS) break;
    const instance = instances[e.instance]!;
    switch (e.kind) {
      case 'wake':
        if (instance.startAttempt(e.at))
          heap.push({ at: e.at + half, seq: seq++, instance: e.instance, kind: 'arrive' });
        else wake(e.instance, e.at);
        break;
      case 'arrive': {
        const d = (limiters[e.instance] ?? shared).take(e.at);
        verdicts[e.instance] = d.ok ? { ok: true } : { ok: false, retryAfterS: d.retryAfterS };
        // A queue (nginx without nodelay) answers an admitted request once its turn came.
        const queuedMs = d.ok ? (d.delayMs ?? 0) : 0;
        heap.push({ at: e.at + queuedMs + half, seq: seq++, instance: e.instance, kind: 'answer' });
        break;
      }
      case 'answer':
        instance.answer(e.at, verdicts[e.instance]!);
        wake(e.instance, e.at);
        break;
    }
  }
  const truncated = events > MAX_EVENTS;
  const tallies = instances.map((i) => i.tally);
  const drained = setup.until === 'drained' && !truncated && instances.every((i) => i.nextMs() === null);
  const drainedMs = tallies.reduce((m, t) => Math.max(m, t.last_done_ms), 0);
  return {
    ...fleetFigures(tallies, latencies, setup.duration_s),
    drained_s: drained ? Math.round(drainedMs / 100) / 10 : null,
    truncated,
  };
}
