// The token ledger: tokens captured by earlier runs, kept so that a scheduled run can prove the
// 24-hour expiry on a real sandbox without waiting 24 hours in-process. It holds whole tokens (to
// use them again), so it is a 0600 file outside the report folder and never quoted by a report.

import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Target } from '../config/target.js';
import { HarnessError } from '../errors.js';
import { FILE_LIMITS, readUserFile } from '../fs/user-file.js';

export interface LedgerEntry {
  base_url: string;
  /** A hash of the client_id: enough to tell clients apart, nothing to leak. */
  client: string;
  token: string;
  expires_at: number;
  first_seen: string;
  /** Set once a run has seen this token refused after expiry; such entries are then dropped. */
  proven_expired?: boolean;
}

interface LedgerFile {
  version: 1;
  entries: LedgerEntry[];
}

export const LEDGER_FIX = 'point --ledger (or ledger: in the config) at a file in a folder you can write, or pass --ledger off';

// Entries of tokens that expired long ago and could never be checked (the target moved, say).
const FORGET_AFTER_S = 7 * 86_400;

export class Ledger {
  private entries: LedgerEntry[];

  private constructor(
    readonly path: string | null,
    entries: LedgerEntry[],
  ) {
    this.entries = entries;
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
    try {
      const text = readUserFile(path, { what: 'ledger', maxBytes: FILE_LIMITS.ledger, fix: LEDGER_FIX });
      const parsed = JSON.parse(text) as Partial<LedgerFile>;
      const entries = Array.isArray(parsed.entries) ? parsed.entries.filter(isEntry) : [];
      return new Ledger(path, entries);
    } catch (err) {
      if (err instanceof HarnessError) throw err;
      return new Ledger(path, []);
    }
  }

  get enabled(): boolean {
    return this.path !== null;
  }

  /** Entries for this target and client, oldest first. */
  entriesFor(target: Target): LedgerEntry[] {
    const client = clientKey(target);
    return this.entries.filter((e) => e.base_url === target.baseUrl && e.client === client).sort((a, b) => a.expires_at - b.expires_at);
  }

  find(target: Target, token: string): LedgerEntry | undefined {
    return this.entriesFor(target).find((e) => e.token === token);
  }

  record(target: Target, token: string, expiresAtS: number, nowMs: number): void {
    if (!this.enabled || this.find(target, token)) return;
    this.entries.push({
      base_url: target.baseUrl,
      client: clientKey(target),
      token,
      expires_at: expiresAtS,
      first_seen: new Date(nowMs).toISOString(),
    });
  }

  markProvenExpired(entry: LedgerEntry): void {
    entry.proven_expired = true;
  }

  /** Writes atomically with mode 0600, dropping what is proven or forgotten. */
  save(nowMs: number): void {
    if (this.path === null) return;
    const nowS = nowMs / 1000;
    const kept = this.entries.filter((e) => !e.proven_expired && e.expires_at + FORGET_AFTER_S > nowS);
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, JSON.stringify({ version: 1, entries: kept } satisfies LedgerFile, null, 2) + '\n', { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.path);
    } catch (err) {
      // The temp file holds whole tokens: it must not outlive a failed save.
      rmSync(tmp, { force: true });
      throw err;
    }
    this.entries = kept;
  }
}

export function clientKey(target: Pick<Target, 'credentials'>): string {
  return createHash('sha256').update(target.credentials.clientId).digest('hex').slice(0, 16);
}

function isEntry(e: unknown): e is LedgerEntry {
  const x = e as LedgerEntry;
  return !!x && typeof x.base_url === 'string' && typeof x.client === 'string' && typeof x.token === 'string' && typeof x.expires_at === 'number';
}
