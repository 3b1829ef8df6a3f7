// The client checks: one typed list, in report order. The id is each file's check id; the README
// and docs tables come from this list.

import { check as tokenRequest } from './token-request.js';
import { check as tokenReuse } from './token-reuse.js';
import { check as bearer } from './bearer.js';
import { check as renewsAfterExpiry } from './renews-after-expiry.js';
import { check as rateLimitWait } from './rate-limit-wait.js';
import { check as secretKept } from './secret-kept.js';
import { check as tls13 } from './tls13.js';
import { check as exitCode } from './exit-code.js';

export type { ClientCheck, Judgement } from './types.js';

export const CLIENT_CHECKS = [
  tokenRequest,
  tokenReuse,
  bearer,
  renewsAfterExpiry,
  rateLimitWait,
  secretKept,
  tls13,
  exitCode,
] as const;
