// The token ledger: tokens captured by earlier runs, kept so that a scheduled run can prove the
// 24-hour expiry on a real sandbox without waiting 24 hours in-process. It needs whole tokens (to
// use them again), but never holds one in plaintext: each is sealed under its client's secret
// (ledger-seal.ts), beside its fingerprint. A 0600 file outside the report folder, never quoted.

import { createHash } from 'node:crypto';
import type { Target } from '../config/target.js';
import { HarnessError } from '../errors.js';
import { refuseSymlink, writePrivateFile } from '../fs/private-file.js';
import { FILE_LIMITS, readUserFile } from '../fs/user-file.js';
import { fingerprint } from '../http/redact.js';
import { seal, unseal } from './ledger-seal.js';

export interface LedgerEntry {
  base_url: string;
  /** A hash of the client_id: enough to tell clients apart, nothing to leak. */
  client: string;
  /** The token, only in memory: unsealed with the target's credentials. */
  token: string;
  expires_at: number;
  first_seen: string;
  /** Set once a run has seen this token refused after expiry; such entries are then dropped. */
  proven_expired?: boolean;
}

/** An entry as the file holds it: the token sealed, and its fingerprint to tell entries apart. */
interface StoredEntry extends Omit<LedgerEntry, 'token'> {
  sealed: string;
  fingerprint: string;
}

/** In memory: the stored form, plus the token once a target has unsealed it. */
type Held = StoredEntry & { token?: string };

interface LedgerFile {
  version: 2;
  entries: StoredEntry[];
}

export const LEDGER_FIX = 'point --ledger (or ledger: in the config) at a file in a folder you can write, or pass --ledger off';

// Entries of tokens that expired long ago and could never be checked (the target moved, say).
const FORGET_AFTER_S = 7 * 86_400;

export class Ledger {
  private entries: Held[];
  /** Said once on the terminal: e.g. an old plaintext ledger that was dropped. */
  readonly warnings: string[];

  private constructor(
    readonly path: string | null,
    entries: Held[],
    warnings: string[] = [],
  ) {
    this.entries = entries;
    this.warnings = warnings;
  }

  static disabled(): Ledger {
    return new Ledger(null, []);
  }

  /**
   * A missing or unreadable ledger starts empty: it is a cache of evidence, not configuration. A
   * path that is no file at all (a folder, a device) or a huge file is the user's mistake, though.
   */
  static open(path: string | null): Ledger {
    if (path === null) return Ledger.disabled();
    refuseSymlink(path, 'ledger', LEDGER_FIX);
    try {
      const text = readUserFile(path, { what: 'ledger', maxBytes: FILE_LIMITS.ledger, fix: LEDGER_FIX });
      const parsed = JSON.parse(text) as { version?: unknown; entries?: unknown };
      const entries = Array.isArray(parsed.entries) ? parsed.entries : [];
      if (parsed.version !== 2) {
        // Written by an older harness with whole tokens in it: not read, and gone at the next save.
        const note = `ledger ${path} is an old plaintext ledger (${entries.length} entries); it is dropped and rewritten with sealed tokens`;
        return new Ledger(path, [], entries.length ? [note] : []);
      }
      return new Ledger(path, entries.filter(isStored));
    } catch (err) {
      if (err instanceof HarnessError) throw err;
      return new Ledger(path, []);
    }
  }

  get enabled(): boolean {
    return this.path !== null;
  }

  /** Entries for this target and client that its credentials unseal, oldest first. */
  entriesFor(target: Target): LedgerEntry[] {
    const client = clientKey(target);
    const mine = this.entries.filter((e) => e.base_url === ledgerUrl(target.baseUrl) && e.client === client);
    for (const e of mine) e.token ??= unseal(e.sealed, target.credentials, target.baseUrl);
    return mine.filter((e): e is Held & LedgerEntry => e.token !== undefined).sort((a, b) => a.expires_at - b.expires_at);
  }

  find(target: Target, token: string): LedgerEntry | undefined {
    return this.entriesFor(target).find((e) => e.token === token);
  }

  record(target: Target, token: string, expiresAtS: number, nowMs: number): void {
    if (!this.enabled || this.find(target, token)) return;
    this.entries.push({
      base_url: ledgerUrl(target.baseUrl),
      client: clientKey(target),
      token,
      sealed: seal(token, target.credentials, target.baseUrl),
      fingerprint: fingerprint(token),
      expires_at: expiresAtS,
      first_seen: new Date(nowMs).toISOString(),
    });
  }

  markProvenExpired(entry: LedgerEntry): void {
    entry.proven_expired = true;
  }

  /** Writes atomically with mode 0600, dropping what is proven or forgotten; tokens stay sealed. */
  save(nowMs: number): void {
    if (this.path === null) return;
    const nowS = nowMs / 1000;
    const kept = this.entries.filter((e) => !e.proven_expired && e.expires_at + FORGET_AFTER_S > nowS);
    const stored = kept.map(({ token: _plain, ...rest }): StoredEntry => rest);
    writePrivateFile(this.path, JSON.stringify({ version: 2, entries: stored } satisfies LedgerFile, null, 2) + '\n');
    this.entries = kept;
  }
}

/**
 * The base URL as the file names it: without a query or fragment, which may hold a secret (a key
 * in `?key=…`). Two targets that differ only there share the name, never a token: each entry
 * unseals only under the full base URL it was sealed with.
 */
const ledgerUrl = (baseUrl: string): string => baseUrl.replace(/[?#][\s\S]*$/, '');

export function clientKey(target: Pick<Target, 'credentials'>): string {
  return createHash('sha256').update(target.credentials.clientId).digest('hex').slice(0, 16);
}

function isStored(e: unknown): e is StoredEntry {
  const x = e as StoredEntry;
  return !!x && typeof x.base_url === 'string' && typeof x.client === 'string' && typeof x.sealed === 'string' && typeof x.fingerprint === 'string' && typeof x.expires_at === 'number';
}
