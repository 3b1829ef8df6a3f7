import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { provoked429 } from '../src/runner/limit-burst.js';
import { errorTextOf } from '../src/spec/error-body.js';

export const check: Check = {
  id: 'ratelimit.error-body',
  title: 'A 429 carries a JSON body with a string error',
  spec: '7',
  level: 'must',
  needsAcceptedCredentials: true,
  description:
    'The 429 provoked by the burst has a JSON object body with a string `error` field (§7 error body shape).',
  phase: 'last',
  async run(ctx) {
    const found = await provoked429(ctx);
    if ('skip' in found) return skip(found.skip);
    const { limited } = found;
    const evidence = [ctx.http.evidence(limited)];
    if (errorTextOf(limited.json) === undefined) {
      return fail(
        `the 429 body is ${ctx.http.quote(limited)}; §7 wants a JSON object with a string \`error\``,
        evidence,
      );
    }
    return pass(`429 ${ctx.http.quote(limited)}`, evidence);
  },
};
