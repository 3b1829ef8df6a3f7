// Every value an answer presents as a credential, in whatever answer it comes: a token field of
// POST /tokens, a rotated token in a business answer, an `accessToken` in a refusal, a header of
// its own (`X-New-Token`), a Set-Cookie. Each is hidden in every output from then on (the service
// client gives them to the redactor as the answer arrives); which of them also JUDGE later answers
// (a refusal carrying one fails its check) is decided here:
// - a success (2xx) hands its token fields and token headers out as tokens: judged;
// - a refusal's or a cookie's values are hidden only. A conformant 401 may say `"token":
//   "invalid_or_expired"` and a load balancer sets the same stickiness cookie on every answer;
//   judging by them would fail a conformant service. Whether such a value is a token is decided
//   by trying it (src/runner/expect.ts, handedOutTokenNote), which judges it from then on.

import { CREDENTIAL_FIELDS, CREDENTIAL_HEADERS } from './credential-fields.js';
import { decoded, looksLikeToken } from './token-candidates.js';

/** A name that presents its value as a credential: `accessToken`, `x-session-token`, `session_jwt`, `apiKey`. */
const PRESENTED = /token|secret|session|jwt|bearer|api_?key|password|credential/i;

export interface HandedOut {
  value: string;
  /** Judged in later answers as a token issued to this run, not only hidden. */
  judged: boolean;
}

function fieldsIn(value: unknown, out: Array<[string, string]> = []): Array<[string, string]> {
  if (Array.isArray(value)) for (const v of value) fieldsIn(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === 'string') out.push([k, v]);
      else fieldsIn(v, out);
    }
  return out;
}

/** The value a (non-cookie) credential header carries: the token after a scheme, or the whole value. */
const headerValue = (value: string): string => value.replace(/^\s*(Bearer|Token|Basic)\s+/i, '').trim();

const COOKIE_ATTRIBUTE = /^\s*(path|domain|expires|max-age|samesite|secure|httponly|partitioned|priority)\b/i;

/** What an answer presents as a credential, and whether each is judged from now on. */
export function handedOutIn(status: number, json: unknown, headers: Record<string, string>): HandedOut[] {
  const success = status >= 200 && status < 300;
  const out: HandedOut[] = [];
  const add = (value: string, judged: boolean) => {
    out.push({ value, judged });
    const plain = decoded(value);
    if (plain !== undefined) out.push({ value: plain, judged });
  };
  for (const [name, value] of fieldsIn(json)) {
    // A field the spec's own vocabulary names (`token`) is the token as it stands; another name
    // only when its value looks like one (`token_type: "Bearer"` is no token).
    if (CREDENTIAL_FIELDS.has(name.toLowerCase())) add(value, success);
    else if (PRESENTED.test(name) && looksLikeToken(value)) add(value, success);
  }
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!CREDENTIAL_HEADERS.has(lower) && !PRESENTED.test(lower)) continue;
    const cookie = lower.includes('cookie');
    for (const v of cookie ? cookieValues(value) : [headerValue(value)]) add(v, success && !cookie);
  }
  return out.filter((h) => h.value !== '');
}

/** Each cookie's value of a Cookie or (joined) Set-Cookie header; attributes are not values. */
function cookieValues(value: string): string[] {
  return value
    .split(/[,;]/)
    .filter((pair) => pair.includes('=') && !COOKIE_ATTRIBUTE.test(pair))
    .map((pair) => pair.slice(pair.indexOf('=') + 1).trim())
    .filter((v) => v !== '');
}
