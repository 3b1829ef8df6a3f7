// What may reach a production environment, decided where every in-process request goes out
// (ServiceClient.sendOnce): production is read-only by default. The gate counts each request
// against the run's budget (production.max_requests), refuses a business call carrying a token
// this run was issued unless business.<name>.production allows that endpoint, and keeps the audit
// trail the report lists. Refused requests are never sent; the errors below say why, and the
// check runner turns them into "not tested" rather than a verdict.

import type { BusinessEndpoint } from '../spec/endpoints.js';
import type { BearerKind, ProductionRequest } from '../report/model.js';

export class ProductionBudgetReached extends Error {
  override readonly name = 'ProductionBudgetReached';
  constructor(readonly maxRequests: number) {
    super(`not tested (production request budget ${maxRequests} reached; raise production.max_requests to send more)`);
  }
}

export class ProductionCallNotAllowed extends Error {
  override readonly name = 'ProductionCallNotAllowed';
  constructor(readonly endpoint: string) {
    super(notAllowedOnProduction([endpoint]));
  }
}

/** The skip reason of a check that needs an accepted call to endpoints production does not allow. */
export function notAllowedOnProduction(endpoints: readonly string[]): string {
  const keys = endpoints.map((e) => `business.${e}.production`).join(', ');
  return `not tested on production (${keys} ${endpoints.length === 1 ? 'is' : 'are'} not allowed; to allow, give ${endpoints.length === 1 ? 'it' : 'each'} \`production: { allow: true, method: POST, body: {...} }\` with a payload production may receive, see docs/configuration.md)`;
}

export class ProductionGate {
  readonly requests: ProductionRequest[] = [];
  private admitted = 0;
  private k6 = 0;

  constructor(
    readonly maxRequests: number,
    /** The business endpoints whose config says `production: { allow: true, … }`. */
    readonly allowed: ReadonlySet<BusinessEndpoint>,
  ) {}

  /**
   * Counts a request in before it is sent, or throws (nothing sent) when it would pass the budget
   * or is an accepted-token call to a business endpoint production does not allow.
   */
  admit(path: string, bearer: BearerKind): void {
    const endpoint = businessEndpointOf(path);
    if (bearer === 'valid' && endpoint !== undefined && !(this.allowed as ReadonlySet<string>).has(endpoint))
      throw new ProductionCallNotAllowed(endpoint);
    if (this.admitted >= this.maxRequests) throw new ProductionBudgetReached(this.maxRequests);
    this.admitted++;
  }

  record(entry: ProductionRequest): void {
    this.requests.push(entry);
  }

  /** k6 sends outside this process (only with --allow-production-load): its own count, from its summary. */
  addK6Requests(count: number): void {
    this.k6 += count;
  }

  get k6Requests(): number {
    return this.k6;
  }

  get budgetReached(): boolean {
    return this.admitted >= this.maxRequests;
  }
}

/** Whether a check's message says the budget held one of its requests back (ProductionBudgetReached's words). */
export const heldBackByBudget = (message: string): boolean => /\bproduction request budget \d+ reached\b/.test(message);

/**
 * The run's line once the budget is spent: what went out, how much of it the rate limit refused
 * (behind a low limit the checks' requests are refused about once each before they get in, and
 * every try counts), which checks the budget left untested, and how to give it more.
 */
export function budgetReachedLine(gate: ProductionGate, heldBack: readonly string[]): string {
  const refused = gate.requests.filter((q) => q.status === 429).length;
  const spent = `${gate.requests.length} requests sent to production${refused ? `, ${refused} of them refused by its rate limit (429) and sent again in turn, each try counted` : ''}`;
  const which = heldBack.length ? `not tested because of it: ${heldBack.join(', ')}` : 'what remained was not tested';
  return `the production request budget (production.max_requests ${gate.maxRequests}) was reached (${spent}); ${which}; raise production.max_requests in the config to test it`;
}

/** `/v1/evaluation` → evaluation: any path under /v1/ is business (§4.4), named or not. */
export function businessEndpointOf(path: string): string | undefined {
  return /^\/v1\/([^/?#]*)/.exec(path)?.[1];
}
