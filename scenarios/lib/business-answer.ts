// What a business call's answer says about the client: §4.4 leaves payloads to the user, so a
// 422 or 400 for the payload is the token accepted and the limit passed, as surely as a 200.
// Only 401/403 refuse the token (src/spec/limit-statuses.ts, the rule `check` judges by too).

import { passedTokenAndLimit } from '../../src/spec/limit-statuses.js';

export const businessAnswered = passedTokenAndLimit;

/**
 * For k6's http_req_failed: 2xx and 3xx, 429 (waited out, judged by its own metrics) and the
 * 4xx about the payload, each listed (expectedStatuses takes numbers and ranges).
 */
export const EXPECTED_STATUSES: Array<number | { min: number; max: number }> = [
  { min: 200, max: 399 },
  429,
  ...Array.from({ length: 100 }, (_, i) => 400 + i).filter(passedTokenAndLimit),
];
