import type { Check } from '../src/runner/check.js';
import { ALLOWED_SUITE_CASES } from '../src/tls/cases.js';
import { tlsEndpoint } from '../src/tls/endpoint.js';
import { runCases } from '../src/tls/matrix.js';
import { mustAccept, notTls } from '../src/tls/verdict.js';

export const check: Check = {
  id: 'tls.allowed-suites-accepted',
  title: 'Each of the three §5.8 suites is accepted with TLS 1.3',
  spec: '5.8',
  level: 'must',
  description:
    'Offers TLS 1.3 with only TLS_AES_128_GCM_SHA256, then only TLS_AES_256_GCM_SHA384, then only TLS_CHACHA20_POLY1305_SHA256; each handshake must succeed and negotiate TLS 1.3 with exactly that suite.',
  async run({ target, signal }) {
    const endpoint = tlsEndpoint(target);
    if (!endpoint.https) return notTls(target.baseUrl);
    const results = await runCases(endpoint, ALLOWED_SUITE_CASES, { signal });
    return mustAccept(endpoint, results, '§5.8 wants each of its three suites accepted with TLS 1.3');
  },
};
