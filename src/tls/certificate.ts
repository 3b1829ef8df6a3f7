// Wording shared by the two certificate checks.

import type { PeerCertificateInfo } from './peer-certificate.js';

export const describeCert = (c: PeerCertificateInfo): string =>
  `${c.subject || 'no subject'}, issued by ${c.issuer || 'no issuer'}${describeChain(c.issuerChain)}, valid to ${c.validTo.slice(0, 10)}`;

/** An intermediate issuer, said as such: which CAs stand above it and how deep the chain is. */
const describeChain = (above: readonly string[] | undefined): string =>
  above?.length
    ? ` (an intermediate CA, itself issued by ${above.join(', issued by ')}; chain depth ${above.length + 1})`
    : '';

/** From PeerCertificateInfo.daysLeft (rounded down, so -3 means 2 to 3 days past expiry). */
export function daysLeftText(days: number): string {
  if (days < 0) {
    const ago = -days - 1;
    return ago === 0 ? 'expired less than a day ago' : `expired ${ago} day${ago === 1 ? '' : 's'} ago`;
  }
  return days === 0 ? 'less than a day to expiry' : `${days} day${days === 1 ? '' : 's'} to expiry`;
}

// The verification codes a user meets most, in words; the code itself stays in the message.
const MEANING: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate does not name this host',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the chain ends in an untrusted root',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the issuer is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the issuer is not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'the issuer is not trusted',
};

const CHAIN_PROBLEMS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
]);

/** "the issuer is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)", and what the user can do about it. */
export function explainAuthorizationError(code: string): { what: string; hint?: string } {
  const meaning = MEANING[code];
  return {
    what: meaning ? `${meaning} (${code})` : code,
    ...(CHAIN_PROBLEMS.has(code) ? { hint: 'if the service uses a private CA, pass it with --ca FILE' } : {}),
  };
}
