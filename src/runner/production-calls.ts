// Which business endpoints a check may call with a valid token, and with what: on production only
// the ones the config opts in (business.<name>.production), each with production's own payload;
// anywhere else every endpoint with its configured call.

import { isProduction } from '../config/target.js';
import { notAllowedOnProduction } from '../http/production-gate.js';
import { BUSINESS_ENDPOINTS, type BusinessCall, type BusinessCalls, type BusinessEndpoint } from '../spec/endpoints.js';
import type { CheckContext } from './check.js';

export interface AcceptedCalls {
  calls: Array<{ name: BusinessEndpoint; call: BusinessCall }>;
  /** On production: why the endpoints left out were left out (the skip reason when none is left). */
  notTested?: string;
  onProduction: boolean;
}

export function acceptedCalls({
  target,
  business,
  production,
}: Pick<CheckContext, 'target' | 'business' | 'production'>): AcceptedCalls {
  if (!isProduction(target))
    return { calls: BUSINESS_ENDPOINTS.map((name) => ({ name, call: business[name] })), onProduction: false };
  const calls = BUSINESS_ENDPOINTS.flatMap((name) =>
    production.business[name] ? [{ name, call: production.business[name] }] : [],
  );
  const left = BUSINESS_ENDPOINTS.filter((name) => !production.business[name]);
  return { calls, onProduction: true, ...(left.length ? { notTested: notAllowedOnProduction(left) } : {}) };
}

/**
 * The calls to send with valid tokens: on production each allowed endpoint's production payload
 * (an endpoint not allowed keeps its sandbox call, which the production gate never lets out with a
 * valid token); elsewhere the configured calls.
 */
export function businessCallsFor({
  target,
  business,
  production,
}: Pick<CheckContext, 'target' | 'business' | 'production'>): BusinessCalls {
  return isProduction(target) ? { ...business, ...production.business } : business;
}
