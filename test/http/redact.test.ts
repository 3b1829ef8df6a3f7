import { describe, expect, it } from 'vitest';
import { fingerprint, Redactor } from '../../src/http/redact.js';
import { formsOf } from '../../src/http/redact/encodings.js';

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

  it('a value given again is upgraded, never re-indexed: seen, then issued, is judged; a token, then a secret, is the secret', () => {
    const r = new Redactor();
    const value = 'Zq8xW2vR7kP4mN1tY6bH3cJ9';
    const answer = `x-new: ${Buffer.from(value).toString('hex')}\n{"a":1}`;
    r.addSeen(value);
    expect(r.heldWhole(answer)).toEqual({ secret: false, token: false });
    r.addToken(value);
    expect(r.heldWhole(answer)).toEqual({ secret: false, token: true });
    r.addSeen(value);
    expect(r.containsIssuedToken(answer)).toBe(true);
    r.addSecret(value, 'client-a');
    expect(r.heldWhole(answer)).toEqual({ secret: true, token: false });
    expect(r.text(`${value} ${value.toLowerCase()}`)).toBe('[redacted] [redacted]');
    // The Basic forms of client_id:secret, added once however often the secret is given.
    r.addSecret(value, 'client-a');
    expect(r.containsSecret(`authorization: Basic ${Buffer.from(`client-a:${value}`).toString('base64')}`)).toBe(true);
  });

  it('judges a secret and a token in one answer, each by its own kind', () => {
    const r = new Redactor();
    r.addSecret('Hq3vL8sN2wX5pR9dK4mT', 'client-a');
    r.addToken('Ab4Cd8Ef2Gh6Ij0Kl3Mn7Op1');
    const answer = 'x-echo: Hq3vL8sN2wX5pR9dK4mT\n{"token":"Ab4Cd8Ef2Gh6Ij0Kl3Mn7Op1"}';
    expect(r.heldWhole(answer)).toEqual({ secret: true, token: true });
    expect(r.heldWhole('{"token":"Ab4Cd8Ef2Gh6Ij0Kl3Mn7Op1"}')).toEqual({ secret: false, token: true });
    // Spread over two fields, only the reader holds it whole.
    expect(r.heldWhole('{"a":"Hq3vL8sN2wX","b":"5pR9dK4mT"}')).toEqual({ secret: true, token: false });
  });

  it('each form encodes every character by its own encoder, for the first value and every later one', () => {
    const byName = (value: string) => new Map(formsOf(value).map((f) => [f.name, f.units.join('')]));
    for (const value of ['a"b/c d&é', 'd&é a"b/c', 'a"b/c d&é']) {
      const forms = byName(value);
      expect(forms.get('raw')).toBe(value);
      expect(forms.get('JSON-escaped')).toBe(JSON.stringify(value).slice(1, -1));
      expect(forms.get('JSON-escaped, ASCII only')).toBe(JSON.stringify(value).slice(1, -1).replace('é', '\\u00e9'));
      expect(forms.get('percent-encoded')).toBe(encodeURIComponent(value));
      expect(forms.get('hex')).toBe(Buffer.from(value).toString('hex'));
      expect(forms.get('hex, upper case')).toBe(Buffer.from(value).toString('hex').toUpperCase());
      expect(forms.get('HTML-escaped (1)')).toBe(value.replace('&', '&amp;').replace('"', '&quot;'));
      expect(forms.get('reversed')).toBe([...value].reverse().join(''));
    }
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

describe('Redactor.text remembers what it read', () => {
  // The terminal redacts a check's message again, and the report walks it twice: text() keeps
  // what it made of each string, until the redactor learns anything that could change it.
  it('reads a string again once the redactor has learned a secret, a token or a value seen', () => {
    const r = new Redactor();
    const [secret, token, seen] = ['Lq7wZ2xN9vK4pR8tB3mH6cJ1', 'Zq8xW2vR7kP4mN1tY6bH3cJ9', 'Hv3kQ9zL2wN8pT5xR1mB7cY4'];
    const line = `quoted ${secret}, ${token} and ${seen}`;
    expect(r.text(line)).toBe(line);
    r.addSecret(secret);
    expect(r.text(line)).toBe(`quoted [redacted], ${token} and ${seen}`);
    r.addToken(token);
    expect(r.text(line)).toBe(`quoted [redacted], ${fingerprint(token)} and ${seen}`);
    r.addSeen(seen);
    expect(r.text(line)).toBe(`quoted [redacted], ${fingerprint(token)} and ${fingerprint(seen)}`);
    r.addSecret(token);
    expect(r.text(line)).toBe(`quoted [redacted], [redacted] and ${fingerprint(seen)}`);
  });

  it('reads again a Basic form learned after', () => {
    const r = new Redactor();
    const basic = `Basic ${Buffer.from('client-7:pw').toString('base64')}`;
    expect(r.text(basic)).toBe(basic);
    r.addSecret('pw', 'client-7');
    expect(r.text(basic)).not.toBe(basic);
  });
});

describe('Redactor.deep', () => {
  // deep() remembers what it made of each string across walks (a report is walked three times);
  // what the redactor learns after a walk must reach the next one.
  it('hides in the next walk a secret learned after the last one', () => {
    const r = new Redactor();
    const later = 'Lq7wZ2xN9vK4pR8tB3mH6cJ1';
    const data = { checks: [{ message: `the answer quoted ${later}` }] };
    expect(r.deep(data)).toEqual(data);
    r.addSecret(later);
    expect(r.deep(data)).toEqual({ checks: [{ message: 'the answer quoted [redacted]' }] });
  });

  it('shows a token that was then given as a secret as [redacted] in the next walk, no longer by its fingerprint', () => {
    const r = new Redactor();
    const value = 'Zq8xW2vR7kP4mN1tY6bH3cJ9';
    r.addToken(value);
    expect(r.deep([`token ${value}`])).toEqual([`token ${fingerprint(value)}`]);
    r.addToken(value);
    expect(r.deep([`token ${value}`])).toEqual([`token ${fingerprint(value)}`]);
    r.addSecret(value);
    expect(r.deep([`token ${value}`])).toEqual(['token [redacted]']);
  });

  it('finds secrets that JSON or HTML would escape', () => {
    const r = new Redactor();
    r.addSecret('quote"and\\slash&<lt>');
    expect(r.deep({ m: ['x quote"and\\slash&<lt> y'] })).toEqual({ m: ['x [redacted] y'] });
  });
});
