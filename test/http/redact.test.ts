import { describe, expect, it } from 'vitest';
import { fingerprint, Redactor } from '../../src/http/redact.js';

describe('Redactor', () => {
  it('replaces secrets with [redacted] and tokens with their fingerprint, in text and in data', () => {
    const r = new Redactor();
    r.addSecret('s3cr3t-value-123');
    r.addToken('tok-abcdefghijklmnop');
    const text = 'secret=s3cr3t-value-123 token=tok-abcdefghijklmnop again tok-abcdefghijklmnop';
    expect(r.text(text)).toBe(
      `secret=[redacted] token=${fingerprint('tok-abcdefghijklmnop')} again ${fingerprint('tok-abcdefghijklmnop')}`,
    );
    expect(r.deep({ a: ['x s3cr3t-value-123'] })).toEqual({ a: ['x [redacted]'] });
    expect(r.containsSecret('…s3cr3t-value-123…')).toBe(true);
    expect(r.containsSecret('nothing here')).toBe(false);
  });

  it('fingerprints are short, stable and do not contain the token', () => {
    const fp = fingerprint('a-very-long-token-value');
    expect(fp).toMatch(/^tk_[0-9a-f]{8}$/);
    expect(fingerprint('a-very-long-token-value')).toBe(fp);
  });

  it('replaces the longest value first so a secret containing a token is hidden whole', () => {
    const r = new Redactor();
    r.addToken('abcdefgh');
    r.addSecret('xxabcdefghxx');
    expect(r.text('xxabcdefghxx')).toBe('[redacted]');
  });
});

describe('Redactor.deep', () => {
  it('finds secrets that JSON or HTML would escape', () => {
    const r = new Redactor();
    r.addSecret('quote"and\\slash&<lt>');
    expect(r.deep({ m: ['x quote"and\\slash&<lt> y'] })).toEqual({ m: ['x [redacted] y'] });
  });
});
