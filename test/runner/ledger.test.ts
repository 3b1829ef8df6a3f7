import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/http/redact.js';
import { Ledger } from '../../src/runner/ledger.js';
import type { Target } from '../../src/config/target.js';

const target: Target = {
  environment: 'sandbox',
  baseUrl: 'https://sb.example.test',
  credentials: { clientId: 'client-a', clientSecret: 'secret-a-123' },
};
const other: Target = { ...target, credentials: { clientId: 'client-b', clientSecret: 'secret-b-123' } };

describe('Ledger', () => {
  it('persists tokens per target and client in a 0600 file, without the client id or secret', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ces-ledger-')), 'sub', 'ledger.json');
    const now = Date.UTC(2026, 10, 22);
    const ledger = Ledger.open(path);
    ledger.record(target, 'token-one-abcdef', now / 1000 + 86_400, now);
    ledger.record(other, 'token-two-abcdef', now / 1000 + 86_400, now);
    ledger.save(now);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('client-a');
    expect(text).not.toContain('secret-a-123');
    // No token in plaintext: sealed, with only its fingerprint beside it.
    expect(text).not.toContain('token-one-abcdef');
    expect(text).not.toContain('token-two-abcdef');
    expect(text).toContain(fingerprint('token-one-abcdef'));
    const again = Ledger.open(path);
    expect(again.entriesFor(target).map((e) => e.token)).toEqual(['token-one-abcdef']);
    expect(again.find(other, 'token-two-abcdef')?.first_seen).toBe(new Date(now).toISOString());
  });

  it('writes no query or fragment of the base URL, where a secret may sit, and still finds its entries', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ces-ledger-')), 'ledger.json');
    const now = Date.UTC(2026, 10, 22);
    const keyed = { ...target, baseUrl: 'https://sb.example.test/?key=url-key-secret#frag-secret' };
    const ledger = Ledger.open(path);
    ledger.record(keyed, 'token-keyed-abcdef', now / 1000 + 86_400, now);
    ledger.save(now);
    const text = readFileSync(path, 'utf8');
    expect(text).not.toMatch(/url-key-secret|frag-secret/);
    expect(
      Ledger.open(path)
        .entriesFor(keyed)
        .map((e) => e.token),
    ).toEqual(['token-keyed-abcdef']);
    // The same origin without that query cannot unseal it.
    expect(Ledger.open(path).entriesFor({ ...target, baseUrl: 'https://sb.example.test/' })).toEqual([]);
  });

  it('drops tokens proven expired and those forgotten for a week', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ces-ledger-')), 'ledger.json');
    const now = Date.UTC(2026, 10, 22);
    const ledger = Ledger.open(path);
    ledger.record(target, 'proven-token-xyz', now / 1000 - 10, now);
    ledger.record(target, 'ancient-token-xyz', now / 1000 - 8 * 86_400, now);
    ledger.record(target, 'live-token-xyz', now / 1000 + 10, now);
    ledger.markProvenExpired(ledger.find(target, 'proven-token-xyz')!);
    ledger.save(now);
    expect(
      Ledger.open(path)
        .entriesFor(target)
        .map((e) => e.token),
    ).toEqual(['live-token-xyz']);
  });

  it("keeps each client's newest token once proven expired: the next token's lifetime is measured from its expiry", () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ces-ledger-')), 'ledger.json');
    const now = Date.UTC(2026, 10, 22);
    const ledger = Ledger.open(path);
    ledger.record(target, 'older-token-xyz', now / 1000 - 86_500, now - 2 * 86_400_000);
    ledger.record(target, 'newest-token-xyz', now / 1000 - 100, now - 86_400_000);
    ledger.record(other, 'other-token-xyz', now / 1000 - 50, now - 86_400_000);
    for (const t of ['older-token-xyz', 'newest-token-xyz']) ledger.markProvenExpired(ledger.find(target, t)!);
    ledger.markProvenExpired(ledger.find(other, 'other-token-xyz')!);
    ledger.save(now);
    const again = Ledger.open(path);
    expect(again.entriesFor(target).map((e) => e.token)).toEqual(['newest-token-xyz']);
    expect(again.entriesFor(other).map((e) => e.token)).toEqual(['other-token-xyz']);
    // The token a new one followed: the newest that had expired by then, never the new one itself.
    expect(again.previousOf(target, 'a-new-token', (s) => s < now / 1000)?.token).toBe('newest-token-xyz');
    expect(again.previousOf(target, 'newest-token-xyz', (s) => s < now / 1000)).toBeUndefined();
  });

  it("runs that end together keep each other's tokens: a save merges what another run saved since", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'ces-ledger-')), 'ledger.json');
    const now = Date.parse('2026-11-22T10:00:00Z');
    // A scheduled check and a ratelimit job, each opened before the other saved.
    const check = Ledger.open(file);
    const ratelimit = Ledger.open(file);
    check.record(target, 'tok-from-check-0001', now / 1000 + 86_400, now);
    ratelimit.record(other, 'tok-from-ratelimit-01', now / 1000 + 86_400, now);
    check.save(now);
    ratelimit.save(now);
    const after = Ledger.open(file);
    expect(after.entriesFor(target).map((e) => e.token)).toEqual(['tok-from-check-0001']);
    expect(after.entriesFor(other).map((e) => e.token)).toEqual(['tok-from-ratelimit-01']);
  });

  it('a corrupt or missing file starts empty; a disabled ledger records nothing', () => {
    expect(Ledger.open(join(tmpdir(), 'does-not-exist', 'x.json')).entriesFor(target)).toEqual([]);
    const off = Ledger.disabled();
    off.record(target, 'token-one-abcdef', 1, 1);
    expect(off.enabled).toBe(false);
    expect(off.entriesFor(target)).toEqual([]);
  });

  it('unseals an entry only with the credentials it was sealed under', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ces-ledger-')), 'ledger.json');
    const now = Date.UTC(2026, 10, 22);
    const ledger = Ledger.open(path);
    ledger.record(target, 'token-one-abcdef', now / 1000 + 86_400, now);
    ledger.save(now);
    const rotated: Target = { ...target, credentials: { ...target.credentials, clientSecret: 'rotated-secret-456' } };
    expect(Ledger.open(path).entriesFor(rotated)).toEqual([]);
    expect(
      Ledger.open(path)
        .entriesFor(target)
        .map((e) => e.token),
    ).toEqual(['token-one-abcdef']);
  });

  it('drops an old plaintext ledger with a warning, and never writes its tokens back', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'ces-ledger-')), 'ledger.json');
    const now = Date.UTC(2026, 10, 22);
    const old = {
      version: 1,
      entries: [
        {
          base_url: target.baseUrl,
          client: 'x',
          token: 'plain-old-token-123',
          expires_at: now / 1000 + 10,
          first_seen: 'then',
        },
      ],
    };
    writeFileSync(path, JSON.stringify(old));
    const ledger = Ledger.open(path);
    expect(ledger.warnings).toEqual([expect.stringMatching(/old plaintext ledger \(1 entries\); it is dropped/)]);
    expect(ledger.entriesFor(target)).toEqual([]);
    ledger.save(now);
    expect(readFileSync(path, 'utf8')).not.toContain('plain-old-token-123');
  });
});
