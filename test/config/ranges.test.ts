// The one number parser of flags: plain decimal (with an exponent) inside its declared range.
import { describe, expect, it } from 'vitest';
import { parseInRange, RANGES } from '../../src/config/ranges.js';

describe('parseInRange', () => {
  it.each([
    ['86400', RANGES.tokenLifetimeS, 86_400],
    ['+60', RANGES.tokenLifetimeS, 60],
    ['1e3', RANGES.tokenLifetimeS, 1_000],
    ['.5', RANGES.clockToleranceS, 0.5],
    ['0', RANGES.expiryWaitS, 0],
  ])('%s is %s', (text, range, value) => {
    expect(parseInRange(text, range, '--x')).toBe(value);
  });

  it.each([
    // Number() would read these as numbers: blanks as 0, hex, Infinity.
    ['', RANGES.expiryWaitS, 'got ""'],
    [' ', RANGES.expiryWaitS, 'got  '],
    ['0x10', RANGES.expiryWaitS, 'got 0x10'],
    ['Infinity', RANGES.clockToleranceS, 'got Infinity'],
    ['1_000', RANGES.tokenLifetimeS, 'got 1_000'],
    ['5s', RANGES.tokenLifetimeS, 'got 5s'],
    // In form, out of range.
    ['1e23', RANGES.tokenLifetimeS, 'got 1e23'],
    ['-5', RANGES.tokenLifetimeS, 'got -5'],
    ['2.5', RANGES.segments, 'got 2.5'],
  ])('%j is refused, naming the range', (text, range, got) => {
    const message = parseInRange(text, range, '--x');
    expect(message).toMatch(/^--x must be (a whole number|a number) of .+ from [\d.]+ to \d+, got /);
    expect(message).toBe(`${String(message).split(', got ')[0]}, ${got}`);
  });
});
