// secret-in-error, upper-cased: a message that shouts the expected secret. A search for the
// secret's exact characters (raw, escaped, encoded) does not find it; a reader does.

import { namingTheSecret } from './secret-in-error.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'secret-upper-in-error',
  spec: '§4.1 rule 2, §7',
  description: 'the 401 for a wrong secret names the expected one upper-cased (`EXPECTED …`) (breaks §4.1 rule 2, §7)',
  override: (base) => namingTheSecret(base, (secret) => `SECRET MISMATCH: EXPECTED ${secret.toUpperCase()}`),
});
