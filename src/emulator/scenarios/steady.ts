// The service as it is most of the time: a day-long token, a generous rate limit, quick answers.
// Shows what the client does when nothing goes wrong (how often it fetches a token, what it sends).

import { defineScenario } from './types.js';

export const scenario = defineScenario({
  name: 'steady',
  spec: '§4.1, §5.3, §5.5',
  description: 'nothing goes wrong: one token for the whole run, every call answered at once',
});
