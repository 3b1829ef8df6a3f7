// What a client scenario is: a name users pass to `ces-harness client --scenario`, the spec section
// whose client-side rule it exercises, one line for the README, and what it changes in the
// emulator. Unlike a fault it breaks nothing: the service may do all of this to a client.

import type { Behaviour } from '../types.js';

export interface ClientScenario<N extends string = string> {
  readonly name: N;
  /** The client-side rule it puts to the test, e.g. "§3, §7 (401: request a new token)". */
  readonly spec: string;
  /** One line a user reads. */
  readonly description: string;
  /**
   * The longest this scenario may keep a correct client from sending (a Retry-After, a backoff
   * through the storm, a slow answer), ms; a client's silence counts as a stall only past it. 0 when absent.
   */
  readonly longestWaitMs?: number;
  /** Token lifetime for this run, seconds; the emulator's default (86400) when absent. */
  readonly tokenTtlS?: number;
  /** Called once per emulator, so per-run state (when a storm began) lives in its closure. */
  readonly override?: (base: Behaviour) => Partial<Behaviour>;
}

/** Keeps the literal name type, so the catalog can derive `ClientScenarioName` from its entries. */
export const defineScenario = <const N extends string>(scenario: ClientScenario<N>): ClientScenario<N> => scenario;

/** Business calls are the ones under /v1/ (§4.4, §9); the storms and the slowness aim at them. */
export const isBusinessPath = (path: string): boolean => path.startsWith('/v1/');
