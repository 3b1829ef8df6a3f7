// One credential set for all environments. Each environment still has its own token store.

import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'shared-credentials',
  spec: '§1, §5.6',
  description: "every environment uses and accepts the first environment's credentials (breaks §1, §5.6)",
  override: () => ({
    environmentCredentials: (generated) => {
      const first = generated[0];
      return first === undefined ? generated : generated.map(() => first);
    },
  }),
});
