// Builds the CheckContext for one target: the clients, the shared token session, the ledger.

import { setMaxListeners } from 'node:events';
import { Redactor } from '../http/redact.js';
import { MAX_IN_FLIGHT } from '../ratelimit/in-flight.js';
import { ServiceClient } from '../http/service-client.js';
import { LimitPacer } from '../http/limit-pacer.js';
import { DEFAULT_RATE_LIMIT_BUDGET } from '../http/rate-limit-wait.js';
import type { TransportSeen } from '../http/exchange.js';
import type { Target } from '../config/target.js';
import type { Expectations, ProductionSettings, RateLimitSettings } from '../config/check-settings.js';
import { DEFAULTS } from '../config/resolve.js';
import { ProductionGate } from '../http/production-gate.js';
import type { BusinessEndpoint } from '../spec/endpoints.js';
import type { BusinessCalls } from '../spec/endpoints.js';
import type { CheckContext } from './check.js';
import type { Ledger } from './ledger.js';
import { TokenSession } from './token-session.js';
import { sleepOrThrow, systemClock, type Clock } from '../time/clock.js';
import { tighterAdvertisement } from '../spec/ratelimit-fields.js';

export interface ContextInput {
  target: Target;
  others: Target[];
  expect: Expectations;
  business: BusinessCalls;
  rateLimit: RateLimitSettings;
  /** What production may receive; production's defaults (nothing opted in) when absent. */
  production?: ProductionSettings;
  /** The run's gate, shared with its other stages; one of this context's own when absent. */
  productionGate?: ProductionGate;
  ledger: Ledger;
  redactor?: Redactor;
  progress?: (message: string) => void;
  signal?: AbortSignal;
  /** What the run reads and waits on (the system clock unless a test runs it on virtual time). */
  clock?: Clock;
}

export interface OpenContext {
  ctx: CheckContext;
  /** What ALPN and the content codings were, over every client of the context so far. */
  transportSeen(): TransportSeen;
  close(): Promise<void>;
}

export function createContext(input: ContextInput): OpenContext {
  const redactor = input.redactor ?? new Redactor();
  for (const t of [input.target, ...input.others])
    redactor.addSecret(t.credentials.clientSecret, t.credentials.clientId);
  const signal = input.signal ?? new AbortController().signal;
  // Every concurrent request, sleep and handshake listens to this one signal: dozens is expected.
  setMaxListeners(0, signal);
  const base = input.clock ?? systemClock;
  // Every wait of the run, a 429's in the clients included, ends (throws) when the run is stopped.
  const clock: Clock = { now: () => base.now(), sleep: (ms) => sleepOrThrow(base, ms, signal) };
  const { now } = clock;
  const sleep = (ms: number) => clock.sleep(ms);
  const production = input.production ?? { maxRequests: DEFAULTS.productionMaxRequests, business: {} };
  const gate = input.productionGate ?? productionGateFor(production);
  const clients: ServiceClient[] = [];
  const rateLimitBudget = {
    ...DEFAULT_RATE_LIMIT_BUDGET,
    maxTotalWaitMs: (input.rateLimit.limitWaitS ?? DEFAULT_RATE_LIMIT_BUDGET.maxTotalWaitMs / 1000) * 1000,
  };
  const progress = input.progress ?? (() => {});
  // One per base URL: the checks share its limit, another environment's limit is its own.
  const pacers = new Map<string, LimitPacer>();
  const clientFor = (target: Target) => {
    const pacer = pacers.get(target.baseUrl) ?? new LimitPacer(progress);
    pacers.set(target.baseUrl, pacer);
    // Connections open on demand: the checks use a few, the rate-limit burst up to MAX_IN_FLIGHT against slow answers.
    const client = new ServiceClient(target, {
      redactor,
      clock,
      production: gate,
      connections: MAX_IN_FLIGHT,
      pacer,
      rateLimitBudget,
    });
    clients.push(client);
    return client;
  };
  // Made on first use: a client builds its trust store (~20 ms of CPU for the system roots plus
  // the CA), which a run of only tls.* checks never needs.
  let targetClient: ServiceClient | undefined;
  const http = () => (targetClient ??= clientFor(input.target));
  const session = new TokenSession({
    get http() {
      return http();
    },
    expect: input.expect,
    business: input.business.evaluation,
    now,
    sleep,
    progress,
  });
  const ctx: CheckContext = {
    target: input.target,
    others: input.others,
    expect: input.expect,
    business: input.business,
    production,
    rateLimit: input.rateLimit,
    get http() {
      return http();
    },
    clientFor,
    session,
    ledger: input.ledger,
    redactor,
    now,
    sleep,
    progress,
    signal,
  };
  const transportSeen = (): TransportSeen => {
    const all: TransportSeen = { connections: {}, codings: {} };
    for (const client of clients) {
      const seen = client.transportSeen();
      for (const [v, n] of Object.entries(seen.connections)) all.connections[v] = (all.connections[v] ?? 0) + n;
      for (const [c, n] of Object.entries(seen.codings)) all.codings[c] = (all.codings[c] ?? 0) + n;
      // The target's own limit: another environment's answers (the isolation probe's) announce theirs.
      if (seen.advertised && client.target.baseUrl === input.target.baseUrl)
        all.advertised = tighterAdvertisement(all.advertised, seen.advertised);
    }
    return all;
  };
  return { ctx, transportSeen, close: async () => void (await Promise.all(clients.map((c) => c.close()))) };
}

/** A run's gate for its production settings: the budget, and the endpoints opted in. */
export function productionGateFor(production: ProductionSettings): ProductionGate {
  return new ProductionGate(production.maxRequests, new Set(Object.keys(production.business) as BusinessEndpoint[]));
}
