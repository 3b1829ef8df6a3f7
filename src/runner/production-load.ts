// What load and a rate-limit probe may do to production: refused without --allow-production-load,
// and with it only the business endpoints the config opts in, with production's payload. Decided
// on the resolved settings before the first request of the stage that would send them.

import { HarnessError } from '../errors.js';
import type { TargetSettings } from '../config/resolve.js';
import { isProduction } from '../config/target.js';
import { notAllowedOnProduction } from '../http/production-gate.js';
import { businessCallsFor } from './production-calls.js';
import { BUSINESS_ENDPOINTS, type BusinessCalls, type BusinessEndpoint } from '../spec/endpoints.js';

export function refuseProductionLoad(settings: TargetSettings, what: string): void {
  if (!settings.rateLimit.probingAllowed) {
    throw new HarnessError(
      'PRODUCTION_REFUSED',
      `${what} against ${settings.target.environment} is refused; pass --allow-production-load if you really mean to load production`,
    );
  }
}

/**
 * The business calls load or a rate-limit probe may send with valid tokens. On production, even
 * with --allow-production-load, only endpoints opted in (business.<name>.production), with
 * production's payload: the sandbox payload there may be a real evaluation or transaction. An
 * endpoint the run needs and production does not allow is refused before the first request.
 */
export function businessForLoad(
  settings: TargetSettings,
  what: string,
  needed: readonly BusinessEndpoint[],
): BusinessCalls {
  if (!isProduction(settings.target)) return settings.business;
  const missing = needed.filter((name) => !settings.production.business[name]);
  if (missing.length)
    throw new HarnessError(
      'PRODUCTION_REFUSED',
      `${what} against ${settings.target.environment} calls ${missing.map((n) => `/v1/${n}`).join(' and ')} with valid tokens; ${notAllowedOnProduction(missing).replace(/^not tested on production \(|\)$/g, '')}`,
    );
  return businessCallsFor(settings);
}

/** The business endpoint a rate-limit endpoint (rate_limit.endpoint) calls, if any. */
export const businessOfRateLimit = (endpoint: string): BusinessEndpoint[] =>
  BUSINESS_ENDPOINTS.filter((name) => endpoint === `business.${name}`);

/** The business endpoints k6 scenarios call: throughput both, rate-limit rate_limit.endpoint's. */
export function businessNeededBy(scenarios: readonly string[], rateLimitEndpoint: string): BusinessEndpoint[] {
  return BUSINESS_ENDPOINTS.filter(
    (name) =>
      scenarios.includes('throughput') ||
      (scenarios.includes('rate-limit') && businessOfRateLimit(rateLimitEndpoint).includes(name)),
  );
}
