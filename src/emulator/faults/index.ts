// The fault catalog: one typed list, from which --fault values, FaultName and the README table
// come. Each entry is a file of its own; applying faults is folding their overrides over the
// conformant behaviour, in the order given, so a later fault wraps an earlier one.

import { conformant } from '../behaviour.js';
import type { Behaviour } from '../types.js';
import { fault as tokenRotates } from './token-rotates.js';
import { fault as expiredTokenAccepted } from './expired-token-accepted.js';
import { fault as forbiddenInsteadOfUnauthorized } from './forbidden-instead-of-unauthorized.js';
import { fault as wrongErrorBody } from './wrong-error-body.js';
import { fault as wrongTokenType } from './wrong-token-type.js';
import { fault as expiresAtMs } from './expires-at-ms.js';
import { fault as wrongLifetime } from './wrong-lifetime.js';
import { fault as tls12Accepted } from './tls12-accepted.js';
import { fault as ccmSuiteAccepted } from './ccm-suite-accepted.js';
import { fault as chachaRefused } from './chacha-refused.js';
import { fault as noTls13 } from './no-tls13.js';
import { fault as unavailableInsteadOf429 } from './unavailable-instead-of-429.js';
import { fault as healthCheckJson } from './health-check-json.js';
import { fault as validate200WhenExpired } from './validate-200-when-expired.js';
import { fault as businessOpenWithoutToken } from './business-open-without-token.js';
import { fault as sharedCredentials } from './shared-credentials.js';
import { fault as concurrentMint } from './concurrent-mint.js';
import { fault as expiresEarly } from './expires-early.js';
import { fault as secretNotChecked } from './secret-not-checked.js';
import { fault as lenientTokenBody } from './lenient-token-body.js';
import { fault as tokensRequireAuthorization } from './tokens-require-authorization.js';
import { fault as healthCheckNeedsAuth } from './health-check-needs-auth.js';
import { fault as healthCheckNoTimestamp } from './health-check-no-timestamp.js';
import { fault as validateWrongShape } from './validate-wrong-shape.js';
import { fault as businessAcceptsAnyToken } from './business-accepts-any-token.js';
import { fault as plainHttpAccepted } from './plain-http-accepted.js';
import { fault as expiredTokenReissued } from './expired-token-reissued.js';
import { fault as slidingExpiry } from './sliding-expiry.js';
import { fault as rateLimitOff } from './rate-limit-off.js';
import { fault as errorBodyNotJson } from './error-body-not-json.js';
import { fault as expiresAtString } from './expires-at-string.js';
import { fault as refusalCarriesToken } from './refusal-carries-token.js';
import { fault as rateLimitNeverLifts } from './rate-limit-never-lifts.js';
import { fault as malformedBodyToken } from './malformed-body-token.js';
import { fault as reflectsRequest } from './reflects-request.js';
import { fault as tokenInHeaders } from './token-in-headers.js';
import { fault as secretInError } from './secret-in-error.js';
import { fault as acceptsSameLengthToken } from './accepts-same-length-token.js';
import { fault as tokenPrefixCompare } from './token-prefix-compare.js';
import { fault as jwtSignatureNotChecked } from './jwt-signature-not-checked.js';
import { fault as refusalTokenRenamed } from './refusal-token-renamed.js';
import { fault as secretHexInError } from './secret-hex-in-error.js';
import { fault as refusalTokenSplit } from './refusal-token-split.js';
import { fault as secretUpperInError } from './secret-upper-in-error.js';
import { fault as validateValidString } from './validate-valid-string.js';
import { fault as expiredGracePeriod } from './expired-grace-period.js';

export type { Fault } from './types.js';

export const FAULTS = [
  tokenRotates,
  expiredTokenAccepted,
  forbiddenInsteadOfUnauthorized,
  wrongErrorBody,
  wrongTokenType,
  expiresAtMs,
  wrongLifetime,
  tls12Accepted,
  ccmSuiteAccepted,
  chachaRefused,
  noTls13,
  unavailableInsteadOf429,
  healthCheckJson,
  validate200WhenExpired,
  businessOpenWithoutToken,
  sharedCredentials,
  concurrentMint,
  expiresEarly,
  secretNotChecked,
  lenientTokenBody,
  tokensRequireAuthorization,
  healthCheckNeedsAuth,
  healthCheckNoTimestamp,
  validateWrongShape,
  businessAcceptsAnyToken,
  plainHttpAccepted,
  expiredTokenReissued,
  slidingExpiry,
  rateLimitOff,
  errorBodyNotJson,
  expiresAtString,
  refusalCarriesToken,
  rateLimitNeverLifts,
  malformedBodyToken,
  reflectsRequest,
  tokenInHeaders,
  secretInError,
  acceptsSameLengthToken,
  tokenPrefixCompare,
  jwtSignatureNotChecked,
  refusalTokenRenamed,
  secretHexInError,
  refusalTokenSplit,
  secretUpperInError,
  validateValidString,
  expiredGracePeriod,
] as const;

export type FaultName = (typeof FAULTS)[number]['name'];

const BY_NAME: ReadonlyMap<string, (typeof FAULTS)[number]> = new Map(FAULTS.map((f) => [f.name, f]));

export const isFaultName = (s: string): s is FaultName => BY_NAME.has(s);

/** The conformant behaviour (or `base`, a profiled one) with the named faults applied; repeats count once. */
export function behaviourWith(names: readonly FaultName[], base: Behaviour = conformant): Behaviour {
  let behaviour = base;
  for (const name of new Set(names)) {
    const fault = BY_NAME.get(name);
    if (fault !== undefined) behaviour = { ...behaviour, ...fault.override(behaviour) };
  }
  return behaviour;
}
