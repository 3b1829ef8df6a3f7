// Secrets never leave the process: every string a check, a report or the terminal shows passes
// through a Redactor that knows the client secrets and every token this run has seen.

import { createHash } from 'node:crypto';
import { mapStrings } from '../plain-data.js';

/** A short, stable, non-reversible name for a token, as the reports show it. */
export function fingerprint(token: string): string {
  return `tk_${createHash('sha256').update(token).digest('hex').slice(0, 8)}`;
}

// Shorter values would turn ordinary words into "[redacted]"; nothing that short is a secret worth
// the name, and the emulator's credentials and tokens are all far longer.
const MIN_SECRET_LENGTH = 6;

export class Redactor {
  private readonly secrets = new Set<string>();
  private readonly tokens = new Map<string, string>();

  addSecret(secret: string | undefined): void {
    if (secret && secret.length >= MIN_SECRET_LENGTH) this.secrets.add(secret);
  }

  addToken(token: string | undefined): void {
    if (token && token.length >= MIN_SECRET_LENGTH && !this.tokens.has(token)) this.tokens.set(token, fingerprint(token));
  }

  /** True when the input holds a client secret (tokens are expected in answers; secrets never). */
  containsSecret(input: string): boolean {
    for (const secret of this.secrets) if (input.includes(secret)) return true;
    return false;
  }

  text(input: string): string {
    let out = input;
    // Longest first, so a secret that contains another is replaced whole.
    const all = [...this.secrets, ...this.tokens.keys()].sort((a, b) => b.length - a.length);
    for (const value of all) {
      if (!out.includes(value)) continue;
      const replacement = this.tokens.get(value) ?? '[redacted]';
      out = out.split(value).join(replacement);
    }
    return out;
  }

  /** Redacts every string inside plain data (a report, a result) without changing its shape. */
  deep<T>(value: T): T {
    // A walk rather than text(JSON.stringify(…)): JSON escaping would hide a secret holding `"` or `\`.
    return mapStrings(value, (v) => this.text(v));
  }
}
