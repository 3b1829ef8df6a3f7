// Issuing a token may take its time where validating one is a lookup: a service that checks the
// client secret with a deliberately slow key-derivation function (bcrypt, scrypt or argon2 at a
// high cost), or a serverless sandbox. The spec sets no latency (§4.1 asks for a token, not a
// speed), so nothing may read a slow issue as a failure: a fixed p95 under 1 s in the k6 scenarios
// failed `load` here (token-lifecycle, p95 1,202 ms) until their bound became the request timeout.

import { defineProfile } from './types.js';

export const profile = defineProfile({
  name: 'slow-token-issue',
  description:
    'POST /tokens takes about 1.2 s to answer (validation and the business endpoints stay quick), as a service that checks the secret with a slow key-derivation function, or a serverless sandbox, does',
  transport: { tokenIssueLatencyMs: 1_200 },
});
