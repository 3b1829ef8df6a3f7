// secret-in-error, hex-encoded: a debug message prints the expected secret's bytes, where a search
// for the secret as text (raw, JSON-escaped, percent-encoded) does not find it.

import { namingTheSecret } from './secret-in-error.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'secret-hex-in-error',
  spec: '§4.1 rule 2, §7',
  description:
    'the 401 for a wrong secret names the expected one hex-encoded (`expected bytes …`) (breaks §4.1 rule 2, §7)',
  override: (base) =>
    namingTheSecret(base, (secret) => `secret mismatch: expected bytes ${Buffer.from(secret).toString('hex')}`),
});
