// Secrets never leave the process: every string a check, a report, a k6 artefact, the ledger or
// the terminal shows passes through a Redactor. It hides, in three layers:
// 1. every form of every known value (encodings.ts): the client secrets it was given and every
//    token this run has seen, raw, JSON-escaped, percent-encoded, base64, HTML-escaped;
// 2. whatever stands where a credential stands (structure.ts), known or not;
// 3. what layer 2 finds is learned, so its other forms elsewhere are caught by layer 1.

import { basicAuthEncodingsOf, encodingsOf } from './redact/encodings.js';
import { fingerprint, isRedactionMark, REDACTED } from './redact/fingerprint.js';
import { escapeRegExp, redactStructure, type CredentialKind } from './redact/structure.js';
import { parseJwt } from '../spec/jwt.js';

export { fingerprint } from './redact/fingerprint.js';

/**
 * Values at least this long are replaced wherever they occur. Shorter known values are still
 * replaced, but only where they stand alone (no letter or digit either side): a 3-character
 * secret must not appear, and "abc" inside "abcdef" is no leak of it. A value learned from
 * structure must be this long to be hunted elsewhere; where it stood is hidden at any length.
 */
export const MIN_SECRET_LENGTH = 6;

interface Form {
  text: string;
  replacement: string;
  /** Short forms only match standing alone. */
  pattern?: RegExp;
}

export class Redactor {
  /** Secrets the run was given (configuration), with their forms: what an echo is judged by. */
  private readonly given = new Map<string, string[]>();
  /** Everything to hide: value → its mark ([redacted] or a fingerprint). */
  private readonly known = new Map<string, string>();
  private readonly extraForms = new Map<string, string>();
  private forms: Form[] | undefined;

  /** A client secret; with its client_id, its Basic auth form is known too. */
  addSecret(secret: string | undefined, clientId?: string): void {
    if (!secret) return;
    const forms = [...encodingsOf(secret), ...(clientId === undefined ? [] : basicAuthEncodingsOf(clientId, secret))];
    this.given.set(secret, forms);
    for (const f of forms) this.extraForms.set(f, REDACTED);
    this.learn(secret, 'secret');
  }

  addToken(token: string | undefined): void {
    if (token) this.learn(token, 'token');
  }

  /** True when the input holds a client secret the run was given, in any form. */
  containsSecret(input: string): boolean {
    for (const forms of this.given.values()) if (forms.some((f) => this.occurs(input, f))) return true;
    return false;
  }

  text(input: string): string {
    const structured = redactStructure(input, (value, kind) => this.markFound(value, kind));
    return this.replaceKnown(structured);
  }

  /** Redacts every string inside plain data (a report, a result) without changing its shape. */
  deep<T>(value: T): T {
    // A walk rather than text(JSON.stringify(…)): the walk sees each string whole and unescaped.
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return this.text(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [this.text(k), walk(x)]));
      return v;
    };
    return walk(value) as T;
  }

  private learn(value: string, kind: CredentialKind): void {
    if (isRedactionMark(value) || this.known.has(value)) return;
    const mark = kind === 'secret' ? REDACTED : fingerprint(value);
    this.known.set(value, mark);
    // A JWT's claims and signature are its own: logged or echoed apart from the whole token (a
    // decoder's message, a gateway's claims header), they still name it. Its header is the same on
    // every token the service issues and says nothing, so it is left readable.
    for (const segment of parseJwt(value)?.segments.slice(1) ?? []) if (segment.length >= MIN_SECRET_LENGTH) this.extraForms.set(segment, mark);
    this.forms = undefined;
  }

  /** Layer 2 → 3: the mark for a value found by structure; long enough values are hunted from now on. */
  private markFound(value: string, kind: CredentialKind): string {
    const known = this.known.get(value);
    if (known !== undefined) return known;
    if (value.length >= MIN_SECRET_LENGTH) this.learn(value, kind);
    return kind === 'secret' ? REDACTED : fingerprint(value);
  }

  private allForms(): Form[] {
    if (this.forms) return this.forms;
    const byText = new Map<string, string>();
    for (const [value, mark] of this.known) for (const f of encodingsOf(value)) if (!byText.has(f)) byText.set(f, mark);
    for (const [f, mark] of this.extraForms) if (!byText.has(f)) byText.set(f, mark);
    // Longest first, so a value that contains another is replaced whole.
    this.forms = [...byText]
      .sort(([a], [b]) => b.length - a.length)
      .map(([text, replacement]) => (text.length >= MIN_SECRET_LENGTH ? { text, replacement } : { text, replacement, pattern: standingAlone(text) }));
    return this.forms;
  }

  private replaceKnown(input: string): string {
    let out = input;
    for (const form of this.allForms()) {
      if (!out.includes(form.text)) continue;
      out = form.pattern ? out.replace(form.pattern, form.replacement) : out.split(form.text).join(form.replacement);
    }
    return out;
  }

  private occurs(input: string, form: string): boolean {
    if (!input.includes(form)) return false;
    return form.length >= MIN_SECRET_LENGTH || standingAlone(form).test(input);
  }
}

const standingAlone = (text: string): RegExp => new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(text)}(?![A-Za-z0-9])`, 'g');
