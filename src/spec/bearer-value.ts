// §5.3 sends the token in `Authorization: Bearer <ACCESS_TOKEN>`, so a token is only usable when a
// header field value can carry it: RFC 9110 §5.5 allows visible characters, spaces, tabs and
// obs-text, never the other control characters (a CR or LF there would end the header and start
// another one: header injection). A service that issues one has issued a token no client can send.

/** The control characters of `token` a header cannot carry, named (CR, LF, NUL, 0x1b…); empty when it can be sent. */
export function unsendableInHeader(token: string): string[] {
  const found = new Set<string>();
  for (const ch of token) {
    const code = ch.codePointAt(0)!;
    if (code === 0x09 || (code >= 0x20 && code !== 0x7f)) continue;
    found.add(NAMES[code] ?? `0x${code.toString(16).padStart(2, '0')}`);
  }
  return [...found];
}

const NAMES: Record<number, string> = { 0x00: 'NUL', 0x0a: 'LF', 0x0d: 'CR', 0x7f: 'DEL' };
