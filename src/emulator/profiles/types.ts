// What a profile is: something real deployments of the service do that the spec allows (a JWT
// token, extra fields, a gateway that closes idle connections, HTTP/2 beside HTTP/1.1, …). Unlike
// a fault it breaks no rule, so the harness must pass against every profile; each one is proved
// by running `check` and `run` against it (test/integration/profiles.test.ts).
//
// A profile changes the behaviour (the decision points of types.ts, as a fault does) and/or the
// transport (how the listener talks: keep-alive, HTTP/2, compression, latency, the certificate
// chain), which a fault never needs, and/or the service's clock (a host whose clock is off).

import type { Behaviour } from '../types.js';
import type { Transport } from '../transport.js';

export interface Profile<N extends string = string> {
  readonly name: N;
  /** One line a user reads: what is different, and which real deployments do it. */
  readonly description: string;
  readonly override?: (base: Behaviour) => Partial<Behaviour>;
  readonly transport?: Partial<Transport>;
  /**
   * How far the service's clock is from the machine's, ms: every instant it judges or states
   * (issue, expiry, expires_at, the health timestamp, the Date header) is on that clock.
   */
  readonly clockOffsetMs?: number;
}

/** Keeps the literal name type, so the catalog can derive `ProfileName` from its entries. */
export const defineProfile = <const N extends string>(profile: Profile<N>): Profile<N> => profile;
