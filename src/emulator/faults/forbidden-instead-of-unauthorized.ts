// Only the status changes: body and WWW-Authenticate stay, so a check can tell "wrong status"
// from "wrong body".

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'forbidden-instead-of-unauthorized',
  spec: '§4.1 rule 2, §7',
  description: 'every 401 (bad credentials, missing, unknown or expired token) is sent as 403 (breaks §4.1 rule 2, §7)',
  override: (base) => ({
    unauthorized: (kind) => ({ ...base.unauthorized(kind), status: 403 }),
  }),
});
