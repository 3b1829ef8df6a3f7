// Accepts the flat form many OAuth servers take; the wrapped form of §4.1 keeps working.

import { credentialsIn } from '../behaviour.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'lenient-token-body',
  spec: '§4.1',
  description: 'a flat {client_id, client_secret} body without the token wrapper is accepted (breaks §4.1)',
  override: (base) => ({
    readCredentials: (body) => base.readCredentials(body) ?? credentialsIn(body),
  }),
});
