// Cipher suite names as Node's `ciphers` option takes them: TLS_-prefixed names are TLS 1.3 suites
// (passed to SSL_CTX_set_ciphersuites), the others TLS 1.2 cipher names (SSL_CTX_set_cipher_list).

/** §5.8: the only three suites the service may speak. */
export const TLS13_SUITES = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
] as const;

/** TLS 1.3 suites OpenSSL has but §5.8 does not allow (and OpenSSL leaves off by default). */
export const TLS13_CCM_SUITES = ['TLS_AES_128_CCM_SHA256', 'TLS_AES_128_CCM_8_SHA256'] as const;

/** TLS 1.2 suites for the faults that allow 1.2; ECDSA because the emulator's key is P-256. */
export const TLS12_ECDSA_SUITES = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
] as const;
