import type { Check, Outcome } from '../src/runner/check.js';
import { fail, pass } from '../src/runner/check.js';
import { daysLeftText, describeCert } from '../src/tls/certificate.js';
import { tlsEndpoint } from '../src/tls/endpoint.js';
import { certificateHandshake } from '../src/tls/certificate-handshake.js';
import { describeHandshake } from '../src/tls/handshake-outcome.js';
import { notTls } from '../src/tls/verdict.js';

/** Renewal this close to expiry leaves no room for a failed renewal before clients break. */
export const MIN_DAYS_LEFT = 30;

export const check: Check = {
  id: 'tls.certificate-expiry',
  title: `The server certificate has at least ${MIN_DAYS_LEFT} days left`,
  spec: '5.8',
  level: 'should',
  description: `Reads the server certificate from an ordinary handshake and warns when it expires in fewer than ${MIN_DAYS_LEFT} days.`,
  async run(ctx): Promise<Outcome> {
    const { target } = ctx;
    const endpoint = tlsEndpoint(target);
    if (!endpoint.https) return notTls(target.baseUrl);
    // Trust is the other check's business; the dates are read whether or not the chain verifies.
    const r = await certificateHandshake(ctx, endpoint);
    const cert = r.peerCert;
    const evidence = [
      { request: 'TLS handshake with default client settings', note: cert ? describeCert(cert) : describeHandshake(r) },
    ];
    if (!r.ok || !cert) {
      return {
        status: 'error',
        message: `no certificate read from ${endpoint.where}: ${describeHandshake(r)}`,
        evidence,
      };
    }
    const when = `${daysLeftText(cert.daysLeft)} (${cert.validTo})`;
    if (cert.daysLeft < MIN_DAYS_LEFT) {
      return fail(
        `the certificate of ${endpoint.where} has ${when}; renew it at least ${MIN_DAYS_LEFT} days ahead so §5.8's TLS keeps working`,
        evidence,
      );
    }
    return pass(`the certificate of ${endpoint.where} has ${when}`, evidence);
  },
};
