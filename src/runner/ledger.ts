// The token ledger: tokens captured by earlier runs, kept so that a scheduled run can prove the
// 24-hour expiry on a real sandbox without waiting 24 hours in-process. It needs whole tokens (to
// use them again), but never holds one in plaintext: each is sealed under its client's secret
// (ledger-seal.ts), beside its fingerprint. A 0600 file outside the report folder, never quoted.

import { createHash } from 'node:crypto';
import type { Target } from '../config/target.js';
import { HarnessError } from '../errors.js';
import { withFileLock } from '../fs/file-lock.js';
import { makePrivateFolder, refuseSymlink, writePrivateFile } from '../fs/private-file.js';
import { FILE_LIMITS, readUserFile } from '../fs/user-file.js';
import { fingerprint } from '../http/redact.js';
import { seal, unseal } from './ledger-seal.js';
import type { IssuedToken } from '../http/exchange.js';
import { epochSeconds } from '../spec/expires-at.js';

export interface LedgerEntry {
  base_url: string;
  /** A hash of the client_id: enough to tell clients apart, nothing to leak. */
  client: string;
  /** The token, only in memory: unsealed with the target's credentials. */
  token: string;
  expires_at: number;
  first_seen: string;
  /**
   * Set once a run has seen this token refused after expiry; such entries are then dropped, all
   * but each client's newest: its expires_at bounds when the next token was issued (rollover).
   */
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

export const LEDGER_FIX =
  'point --ledger (or ledger: in the config) at a file in a folder you can write, or pass --ledger off';

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
    return mine
      .filter((e): e is Held & LedgerEntry => e.token !== undefined)
      .sort((a, b) => a.expires_at - b.expires_at);
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

  /**
   * Every token a command was handed for the target's credentials (checks, the rate-limit probe,
   * the token fetched before a load run), so a later run can prove its expiry and measure the
   * lifetime of the one after it. Tokens whose expires_at is no epoch time cannot be kept.
   */
  recordIssued(target: Target, tokens: readonly IssuedToken[], nowMs: number): void {
    for (const issued of tokens) {
      const expiresAt = epochSeconds(issued.expiresAt);
      if (expiresAt !== undefined) this.record(target, issued.token, expiresAt, nowMs);
    }
  }

  markProvenExpired(entry: LedgerEntry): void {
    entry.proven_expired = true;
  }

  /**
   * The newest of this client's tokens, other than `token`, that had certainly expired by
   * `expiredBy` (a test of its expires_at): the token the service handed out before `token` (§3).
   */
  previousOf(target: Target, token: string, expiredBy: (expiresAtS: number) => boolean): LedgerEntry | undefined {
    return this.entriesFor(target)
      .filter((e) => e.token !== token && expiredBy(e.expires_at))
      .at(-1);
  }

  /**
   * Writes atomically with mode 0600, dropping what is proven or forgotten (but each client's
   * newest token, whose expiry the next token's lifetime is measured from); tokens stay sealed.
   * Every token-fetching command writes here, so runs end together (a scheduled check beside a
   * ratelimit job): under the file's lock, what another run saved since this one read it is
   * merged in, not overwritten.
   */
  save(nowMs: number): void {
    const path = this.path;
    if (path === null) return;
    makePrivateFolder(path);
    withFileLock(path, () => {
      const merged = mergeEntries(this.entries, Ledger.open(path).entries);
      const kept = keptEntries(merged, nowMs / 1000);
      const stored = kept.map(({ token: _plain, ...rest }): StoredEntry => rest);
      writePrivateFile(path, JSON.stringify({ version: 2, entries: stored } satisfies LedgerFile, null, 2) + '\n');
      this.entries = kept;
    });
  }
}

/** The same token as recorded by two runs (each sealed it anew, so the sealed text differs). */
const entryKey = (e: Held) => `${e.base_url} ${e.client} ${e.fingerprint} ${e.expires_at}`;

/** Ours, plus the entries only the file has now; a token proven expired by either run stays so. */
function mergeEntries(ours: Held[], onFile: Held[]): Held[] {
  const byKey = new Map(ours.map((e) => [entryKey(e), e]));
  for (const e of onFile) {
    const mine = byKey.get(entryKey(e));
    if (mine === undefined) byKey.set(entryKey(e), e);
    else if (e.proven_expired) mine.proven_expired = true;
  }
  return [...byKey.values()];
}

function keptEntries(entries: Held[], nowS: number): Held[] {
  const newest = new Map<string, number>();
  const clientOf = (e: Held) => `${e.base_url} ${e.client}`;
  for (const e of entries) newest.set(clientOf(e), Math.max(newest.get(clientOf(e)) ?? -Infinity, e.expires_at));
  const isNewest = (e: Held) => newest.get(clientOf(e)) === e.expires_at;
  return entries.filter((e) => (!e.proven_expired || isNewest(e)) && e.expires_at + FORGET_AFTER_S > nowS);
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
  return (
    !!x &&
    typeof x.base_url === 'string' &&
    typeof x.client === 'string' &&
    typeof x.sealed === 'string' &&
    typeof x.fingerprint === 'string' &&
    typeof x.expires_at === 'number'
  );
}
