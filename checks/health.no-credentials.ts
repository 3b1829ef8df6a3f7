import { fail, pass, type Check } from '../src/runner/check.js';
import { cameBack, isSuccess } from '../src/runner/expect.js';

export const check: Check = {
  id: 'health.no-credentials',
  title: 'POST /tokens/health_check answers without credentials',
  spec: '4.2',
  level: 'must',
  description:
    'POST /tokens/health_check with no body and no Authorization header answers 2xx (§4.2: no body and no credentials).',
  async run({ http }) {
    const ex = await http.healthCheck();
    if (!isSuccess(ex))
      return fail(`${cameBack(http, ex)} with no credentials; §4.2 wants the health check open`, [http.evidence(ex)]);
    return pass(`${ex.status} without credentials`, [http.evidence(ex)]);
  },
};
