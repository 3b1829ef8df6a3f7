import type { Check } from '../src/runner/check.js';
import { LEGACY_VERSION_CASES } from '../src/tls/cases.js';
import { tlsEndpoint } from '../src/tls/endpoint.js';
import { runCases } from '../src/tls/matrix.js';
import { mustRefuse, notTls } from '../src/tls/verdict.js';

export const check: Check = {
  id: 'tls.legacy-versions-refused',
  title: 'TLS 1.0, 1.1 and 1.2 are refused',
  spec: '5.8',
  level: 'must',
  description:
    'Offers TLS 1.0, 1.1 and 1.2 each alone, with every cipher this machine has; each handshake must fail, and a refusal only counts where a loopback calibration proved this machine can offer that version.',
  async run({ target, signal }) {
    const endpoint = tlsEndpoint(target);
    if (!endpoint.https) return notTls(target.baseUrl);
    const results = await runCases(endpoint, LEGACY_VERSION_CASES, { signal });
    return mustRefuse(endpoint, results, '§5.8 wants TLS 1.3 only, so TLS 1.0, 1.1 and 1.2 must each be refused');
  },
};
