// What a fault is: a name users pass to --fault, the spec section it breaks, one line for the
// README, and the behaviour members it replaces. `override` gets the behaviour it is applied to,
// so a fault can wrap the conformant (or an already faulted) member instead of rewriting it.

import type { Behaviour } from '../types.js';

export interface Fault<N extends string = string> {
  readonly name: N;
  /** Sections of service-spec.md it breaks, e.g. "§4.1 rule 1, §3". */
  readonly spec: string;
  /** One line a user reads; ends with "(breaks <spec>)". */
  readonly description: string;
  readonly override: (base: Behaviour) => Partial<Behaviour>;
}

/** Keeps the literal name type, so the catalog can derive `FaultName` from its entries. */
export const defineFault = <const N extends string>(fault: Fault<N>): Fault<N> => fault;
