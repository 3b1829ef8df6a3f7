// The refusal-carries-token leftover, split: the working token's two halves sit in two fields with
// neutral names (`trace`, `trace_ext`), so neither field holds a token, no name says "token", and
// each half alone is refused. Only reading the pieces of one answer as one value, or trying them
// joined, finds it.

import { refusalCarrying } from './refusal-token-renamed.js';
import { defineFault } from './types.js';

export const fault = defineFault({
  name: 'refusal-token-split',
  spec: '§4.1 rule 2, §7',
  description:
    'the 401 for bad credentials carries a working token of the environment’s client split over two fields, `trace` and `trace_ext` (breaks §4.1 rule 2, §7)',
  override: (base) =>
    refusalCarrying(base, (token) => {
      const half = Math.ceil(token.length / 2);
      return { trace: token.slice(0, half), trace_ext: token.slice(half) };
    }),
});
