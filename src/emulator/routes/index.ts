// The router: one table of paths and methods, the rate limit in front of every route (§8), then
// the route's handler. Handlers get a parsed body and return a Reply; they never touch sockets.

import { tokenOwner } from '../bearer.js';
import { methodNotAllowed, notFound } from '../replies.js';
import type { Ctx, Reply, RouteName } from '../types.js';
import { parseJsonBody } from './body.js';
import { business } from './business.js';
import { health } from './health.js';
import { tokens } from './tokens.js';
import { validate } from './validate.js';
import { isJsonObject } from '../../spec/json-object.js';
import { systemClock } from '../../time/clock.js';

interface Route {
  name: RouteName;
  methods: readonly string[];
  /** Only routes that read a JSON body pay for parsing it. */
  json: boolean;
}

/** §4.3 leaves the method open and the sample sends no body: both usual ones, unless an environment narrows them. */
export const VALIDATE_METHODS: readonly string[] = ['GET', 'POST'];

// A Map, not an object literal, so paths like /__proto__ cannot match anything inherited.
const ROUTES = new Map<string, Route>([
  ['/tokens', { name: 'tokens', methods: ['POST'], json: true }],
  ['/tokens/health_check', { name: 'health', methods: ['POST'], json: false }],
  ['/tokens/validate', { name: 'validate', methods: VALIDATE_METHODS, json: false }],
  ['/v1/evaluation', { name: 'evaluation', methods: ['POST'], json: true }],
  ['/v1/ach_transactions', { name: 'ach_transactions', methods: ['POST'], json: true }],
]);

/** The client id a POST /tokens body names, valid or not: the limiter's key for that call. */
function clientIdIn(body: unknown): string | undefined {
  if (!isJsonObject(body)) return undefined;
  const inner = isJsonObject(body.token) ? body.token.client_id : body.client_id;
  return typeof inner === 'string' ? inner : undefined;
}

/** §8 leaves the scope open; per client is what the harness sizes against, the address as fallback. */
function limiterKey(ctx: Ctx, route: RouteName | undefined, body: unknown): string {
  let clientId: string | undefined;
  if (route === 'tokens') clientId = clientIdIn(body);
  else if (route === 'validate' || route === 'evaluation' || route === 'ach_transactions') {
    clientId = tokenOwner(ctx.env, ctx.req.headers.authorization);
  }
  return clientId !== undefined ? `client:${clientId}` : `addr:${ctx.req.remoteAddress}`;
}

/** Every answer, as the (possibly profiled) behaviour finishes it: a gateway's headers and fields. */
export async function route(ctx: Ctx): Promise<Reply> {
  return ctx.b.finish(await answer(ctx), ctx);
}

async function answer(ctx: Ctx): Promise<Reply> {
  const found = ROUTES.get(ctx.req.path);
  const body = found?.json ? parseJsonBody(ctx.req.body) : undefined;
  const decision = ctx.b.limit(ctx, limiterKey(ctx, found?.name, body));
  if (!decision.ok) return ctx.b.rateLimited(decision.retryAfterS);
  // A queueing limiter (nginx without nodelay) holds the request until its turn: real time, like
  // the sockets it waits on and the business latency below.
  if ((decision.delayMs ?? 0) > 0) await systemClock.sleep(decision.delayMs!);
  if (found === undefined) return notFound();
  const methods = found.name === 'validate' ? ctx.env.validateMethods : found.methods;
  if (!methods.includes(ctx.req.method)) return methodNotAllowed(methods);
  const guarded = await ctx.b.guard(ctx, found.name);
  if (guarded !== undefined) return guarded;
  switch (found.name) {
    case 'tokens':
      // Issuing takes its time (a slow key-derivation function): real time, as the business latency below.
      if (ctx.env.tokenIssueLatencyMs > 0) await systemClock.sleep(ctx.env.tokenIssueLatencyMs);
      return tokens(ctx, body);
    case 'health':
      return health(ctx);
    case 'validate':
      return validate(ctx);
    case 'evaluation':
    case 'ach_transactions':
      // A slower service's answer: real time, like the sockets it travels on.
      if (ctx.env.businessLatencyMs > 0) await systemClock.sleep(ctx.env.businessLatencyMs);
      return business(found.name, ctx, body);
  }
}
