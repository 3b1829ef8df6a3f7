import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { parseJwt } from '../src/http/jwt.js';

// 128 bits is the usual floor for a bearer credential that must not be guessed (RFC 6750 §5.2
// asks for tokens that cannot be guessed; OWASP's session-id guidance uses at least 64 bits of
// entropy and recommends more).
const MIN_BITS = 128;

export const check: Check = {
  id: 'token.entropy',
  title: 'Tokens are long and varied enough not to be guessed',
  spec: 'RFC 6750 §5.2',
  level: 'should',
  needsAcceptedCredentials: true,
  description: `Good practice the spec does not demand: the token's length and alphabet (a JWT's: its signature's) allow at least ${MIN_BITS} bits of entropy and its characters are not a repeated pattern.`,
  async run({ http, session }) {
    const ex = await session.firstIssue();
    if (!ex.issued) return skip(`no token was issued (POST /tokens answered ${ex.status}); see token.issue`);
    // A JWT's header and claims are readable structure (the same header on every token, a sub and
    // times anyone can predict): only its signature can be unguessable, so only that is judged.
    const jwt = parseJwt(ex.issued.token);
    const token = jwt ? jwt.segments[2] : ex.issued.token;
    const bits = estimateBits(token);
    const distinct = new Set(token).size;
    const note = `${jwt ? 'JWT signature: ' : ''}${token.length} characters, ${distinct} distinct, about ${Math.round(bits)} bits`;
    const evidence = [http.evidence(ex, `token ${ex.issued.fingerprint}: ${note}`)];
    if (bits < MIN_BITS || distinct < Math.min(16, token.length / 2))
      return fail(`token ${ex.issued.fingerprint} has ${note}; want at least ${MIN_BITS} bits`, evidence);
    return pass(note, evidence);
  },
};

/** An upper estimate: length × log2(size of the character classes used). */
function estimateBits(token: string): number {
  let alphabet = 0;
  if (/[a-z]/.test(token)) alphabet += 26;
  if (/[A-Z]/.test(token)) alphabet += 26;
  if (/[0-9]/.test(token)) alphabet += 10;
  if (/[^a-zA-Z0-9]/.test(token)) alphabet += 4;
  return token.length * Math.log2(Math.max(alphabet, 2));
}
