// How a token is named wherever it appears (reports, terminal, k6 artefacts): `tk_` and the first
// 8 hex digits of its SHA-256. Node and k6 hash with their own crypto; the name is made here once,
// so a token in report.json and in a k6 summary reads the same.

export const TOKEN_FINGERPRINT = /^tk_[0-9a-f]{8}$/;

export const fingerprintOfSha256 = (sha256Hex: string): string => `tk_${sha256Hex.slice(0, 8)}`;
