// The bearer gate is missing from the business endpoints; body validation still applies.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'business-open-without-token',
  spec: '§4.4, §5.3',
  description: 'business endpoints answer 200 without any bearer token (breaks §4.4, §5.3)',
  override: () => ({
    admitBusiness: () => true,
  }),
});
