// The listener sniffs the first byte and serves plain HTTP too, so credentials could travel in clear.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'plain-http-accepted',
  spec: '§5.8',
  description: 'plain HTTP on the TLS port is served too (breaks §5.8)',
  override: () => ({
    plainHttp: true,
  }),
});
