import type { Check, Outcome } from '../src/runner/check.js';
import { fail, pass } from '../src/runner/check.js';
import { tlsEndpoint } from '../src/tls/endpoint.js';
import { isProduction } from '../src/config/target.js';
import { PROBE_TIMEOUT_MS } from '../src/tls/matrix.js';
import { tryPlainHttp } from '../src/tls/plain-http.js';

// How long a TLS-only server may stay silent after a plain-text request before it counts as not
// serving it. Servers usually hang up at once; waiting the full probe timeout would only slow the run.
const SILENCE_MS = 2_000;

export const check: Check = {
  id: 'tls.no-plain-http',
  title: 'Plain HTTP is not served on the service port',
  spec: '5.8',
  level: 'must',
  description:
    'Sends a plain-text POST /tokens/health_check to the host and port of the base URL; it must not be answered with a 2xx (a 400 such as "plain HTTP request was sent to HTTPS port" is fine).',
  async run(ctx): Promise<Outcome> {
    const endpoint = tlsEndpoint(ctx.target);
    const probe = () => tryPlainHttp(endpoint.host, endpoint.port, Math.min(SILENCE_MS, PROBE_TIMEOUT_MS));
    // On production through the service client's gate: counted against the budget and listed.
    // Elsewhere without it, so a run of tls.* checks alone builds no HTTP client.
    const r = isProduction(ctx.target)
      ? await ctx.http.sendRaw('POST', '/tokens/health_check', probe, (p) =>
          p.statusLine ? Number(p.statusLine.split(' ')[1]) : null,
        )
      : await probe();
    const what =
      r.statusLine ??
      (r.timedOut
        ? `no answer within ${SILENCE_MS} ms`
        : `connection closed without an HTTP answer (${r.bytes} bytes)`);
    const evidence = [
      { request: 'plain-text POST /tokens/health_check', note: r.error ? `${r.error.code}: ${r.error.message}` : what },
    ];
    if (r.error) {
      return {
        status: 'error',
        message: `could not connect to ${endpoint.where} for a plain-text request: ${r.error.code}; cannot judge §5.8`,
        evidence,
      };
    }
    if (r.served) {
      return fail(
        `plain-text POST /tokens/health_check to ${endpoint.where} was served: ${what}; §5.8 wants TLS 1.3 for all connections`,
        evidence,
      );
    }
    return pass(`plain-text POST /tokens/health_check to ${endpoint.where} was not served: ${what}`, evidence);
  },
};
