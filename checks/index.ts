// The catalogue of conformance checks, in the order reports list them. A check is a file in this
// folder whose name is its id; this list is the one place that says which checks exist (the README
// table is generated from it and a test keeps the two in step).

import { check as tokenConcurrentIssueOneToken } from './token.concurrent-issue-one-token.js';
import { check as tokenIssue } from './token.issue.js';
import { check as tokenNoAuthorizationNeeded } from './token.no-authorization-needed.js';
import { check as tokenTypeBearer } from './token.type-bearer.js';
import { check as tokenExpiresAtEpochSeconds } from './token.expires-at-epoch-seconds.js';
import { check as tokenLifetime } from './token.lifetime.js';
import { check as tokenSameBeforeExpiry } from './token.same-before-expiry.js';
import { check as tokenBadClientId401 } from './token.bad-client-id-401.js';
import { check as tokenBadSecret401 } from './token.bad-secret-401.js';
import { check as tokenMalformedBodyRefused } from './token.malformed-body-refused.js';
import { check as tokenValidUntilExpiry } from './token.valid-until-expiry.js';
import { check as tokenExpiredValidate401 } from './token.expired-validate-401.js';
import { check as tokenExpiredBusiness401 } from './token.expired-business-401.js';
import { check as tokenNewAfterExpiry } from './token.new-after-expiry.js';
import { check as tokenLedger } from './token.ledger.js';
import { check as healthNoCredentials } from './health.no-credentials.js';
import { check as healthPlainText } from './health.plain-text.js';
import { check as healthTimestamp } from './health.timestamp.js';
import { check as validateValidToken } from './validate.valid-token.js';
import { check as validateMissingToken401 } from './validate.missing-token-401.js';
import { check as validateGarbageToken401 } from './validate.garbage-token-401.js';
import { check as businessMissingToken401 } from './business.missing-token-401.js';
import { check as businessInvalidToken401 } from './business.invalid-token-401.js';
import { check as businessValidTokenAccepted } from './business.valid-token-accepted.js';
import { check as envCredentialsIsolated } from './env.credentials-isolated.js';
import { check as ratelimitLimitEnforced } from './ratelimit.limit-enforced.js';
import { check as ratelimitErrorBody } from './ratelimit.error-body.js';
import { check as ratelimitRecovers } from './ratelimit.recovers.js';
import { check as ratelimitRetryAfter } from './ratelimit.retry-after.js';
import { check as authWwwAuthenticate } from './auth.www-authenticate.js';
import { check as tokenCacheControlNoStore } from './token.cache-control-no-store.js';
import { check as tokenEntropy } from './token.entropy.js';
import { check as tokenNoSecretEcho } from './token.no-secret-echo.js';
import { check as tlsLegacyVersionsRefused } from './tls.legacy-versions-refused.js';
import { check as tlsAllowedSuitesAccepted } from './tls.allowed-suites-accepted.js';
import { check as tlsOtherSuitesRefused } from './tls.other-suites-refused.js';
import { check as tlsCertificateValid } from './tls.certificate-valid.js';
import { check as tlsNoPlainHttp } from './tls.no-plain-http.js';
import { check as tlsCertificateExpiry } from './tls.certificate-expiry.js';
import type { Check } from '../src/runner/check.js';

export const CHECKS: readonly Check[] = [
  tokenConcurrentIssueOneToken,
  tokenIssue,
  tokenNoAuthorizationNeeded,
  tokenTypeBearer,
  tokenExpiresAtEpochSeconds,
  tokenLifetime,
  tokenSameBeforeExpiry,
  tokenBadClientId401,
  tokenBadSecret401,
  tokenMalformedBodyRefused,
  tokenValidUntilExpiry,
  tokenExpiredValidate401,
  tokenExpiredBusiness401,
  tokenNewAfterExpiry,
  tokenLedger,
  healthNoCredentials,
  healthPlainText,
  healthTimestamp,
  validateValidToken,
  validateMissingToken401,
  validateGarbageToken401,
  businessMissingToken401,
  businessInvalidToken401,
  businessValidTokenAccepted,
  envCredentialsIsolated,
  tlsLegacyVersionsRefused,
  tlsAllowedSuitesAccepted,
  tlsOtherSuitesRefused,
  tlsCertificateValid,
  tlsNoPlainHttp,
  ratelimitLimitEnforced,
  ratelimitErrorBody,
  ratelimitRecovers,
  ratelimitRetryAfter,
  authWwwAuthenticate,
  tlsCertificateExpiry,
  tokenCacheControlNoStore,
  tokenEntropy,
  tokenNoSecretEcho,
];
