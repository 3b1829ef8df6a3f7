import type { Check, Outcome } from '../src/runner/check.js';
import { fail, pass } from '../src/runner/check.js';
import { daysLeftText, describeCert, explainAuthorizationError } from '../src/tls/certificate.js';
import { tlsEndpoint } from '../src/tls/endpoint.js';
import { certificateHandshake } from '../src/tls/certificate-handshake.js';
import { describeHandshake, refused } from '../src/tls/handshake-outcome.js';
import { notTls } from '../src/tls/verdict.js';

export const check: Check = {
  id: 'tls.certificate-valid',
  title: 'The server certificate is trusted and names the host',
  spec: '5.8',
  level: 'must',
  description:
    'Handshakes as an ordinary client (default settings, bundled roots plus --ca) with verification on; the chain must be trusted and the certificate must match the host of the base URL.',
  async run(ctx): Promise<Outcome> {
    const { target } = ctx;
    const endpoint = tlsEndpoint(target);
    if (!endpoint.https) return notTls(target.baseUrl);
    const r = await certificateHandshake(ctx, endpoint);
    const name = endpoint.servername ?? endpoint.host;
    const cert = r.peerCert;
    const note = [
      describeHandshake(r),
      cert && describeCert(cert),
      r.ok && (r.authorized ? 'trusted' : `not trusted: ${r.authorizationError ?? 'unknown reason'}`),
    ]
      .filter(Boolean)
      .join('; ');
    const evidence = [{ request: 'TLS handshake with default client settings, verification on', note }];

    if (!r.ok) {
      if (refused(r))
        return fail(
          `${endpoint.where} refused a handshake with default client settings (${describeHandshake(r)}); §5.8 wants TLS 1.3 with a certificate the client can verify`,
          evidence,
        );
      return {
        status: 'error',
        message: `no TLS answer from ${endpoint.where}: ${describeHandshake(r)}; the certificate cannot be judged`,
        evidence,
      };
    }
    if (!cert)
      return fail(
        `${endpoint.where} completed the handshake without a certificate; §5.8 connections need one the client can verify for ${name}`,
        evidence,
      );
    // For the run history: a certificate from another CA, or a renewed one, is a change to report.
    // …and what an ordinary client negotiates, which cutover sets beside the other environment's.
    const facts = {
      issuer: `${cert.issuer || 'no issuer'}${cert.issuerFingerprint ? ` (sha256 ${cert.issuerFingerprint})` : ''}`,
      expires: cert.validTo.slice(0, 10),
      negotiated: `${r.cipher ?? 'unknown cipher'} (${r.protocol ?? 'unknown version'})`,
      ...(cert.key ? { key: cert.key } : {}),
    };
    if (!r.authorized) {
      const { what, hint } = explainAuthorizationError(r.authorizationError ?? 'unknown reason');
      const why = `the certificate of ${endpoint.where} (${describeCert(cert)}) is not trusted for ${name}: ${what}; §5.8's TLS needs one clients can verify${hint ? ` (${hint})` : ''}`;
      return { ...fail(why, evidence), facts };
    }
    return {
      ...pass(`trusted certificate for ${name} (${describeCert(cert)}); ${daysLeftText(cert.daysLeft)}`, evidence),
      facts,
    };
  },
};
