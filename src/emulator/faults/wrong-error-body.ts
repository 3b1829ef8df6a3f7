// A common framework default: right status, JSON, but the wrong field.

import { JSON_TYPE } from '../replies.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'wrong-error-body',
  spec: '§7',
  description: '401 bodies are {"message":"Unauthorized"} instead of {"error":"unauthorized"} (breaks §7)',
  override: (base) => ({
    unauthorized: (kind) => {
      const reply = base.unauthorized(kind);
      return {
        ...reply,
        headers: { ...reply.headers, 'content-type': JSON_TYPE },
        body: JSON.stringify({ message: 'Unauthorized' }),
      };
    },
  }),
});
