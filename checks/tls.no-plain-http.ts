import type { Check, Outcome } from '../src/runner/check.js';
import { fail, pass } from '../src/runner/check.js';
import { tlsEndpoint } from '../src/tls/endpoint.js';
import { isProduction } from '../src/config/target.js';
import { requestTimeoutMs } from '../src/http/dispatcher.js';
import { tryPlainHttp } from '../src/tls/plain-http.js';

export const check: Check = {
  id: 'tls.no-plain-http',
  title: 'Plain HTTP is not served on the service port',
  spec: '5.8',
  level: 'must',
  description:
    'Sends a plain-text POST /tokens/health_check to the host and port of the base URL; it must not be answered with a 2xx (a 400 such as "plain HTTP request was sent to HTTPS port" is fine). A service that stays silent for the whole request timeout counts as not serving it.',
  async run(ctx): Promise<Outcome> {
    const endpoint = tlsEndpoint(ctx.target);
    // How long a silence counts as not serving it: the request timeout every other request gets
    // (10 s unless configured). TLS-only servers hang up at once or answer 400, so only a silent one
    // waits it out; a fixed 2 s passed a service that served plain HTTP 2 s late on a loaded machine
    // (CI land80: the plain-http-accepted fault on production, "no answer within 2000 ms": a pass).
    const silenceMs = requestTimeoutMs(ctx.target);
    const probe = () => tryPlainHttp(endpoint.host, endpoint.port, silenceMs);
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
        ? `no answer within ${silenceMs / 1000} s (the request timeout)`
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
