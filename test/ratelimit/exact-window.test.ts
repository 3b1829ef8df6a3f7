// Which round figure a window's bracket is read as (window-edges.ts exactWindow): windows are
// configured in whole seconds, half seconds or tenths, and only a round figure places the clock's
// edges on Unix time. A 10 s window behind a gateway's bucket, bracketed 9.987-10.147 s, was read
// 10.1 s by the tenth nearest the bracket's middle: a rate 1 % slow and edges that drift 0.1 s a window.

import { describe, expect, it } from 'vitest';
import { exactWindow } from '../../src/ratelimit/probe/window-edges.js';

describe('a window bracket read as a round figure', () => {
  it('a whole second within the bracket before a tenth nearer its middle', () => {
    expect(exactWindow({ lo: 9987, hi: 10147 })).toBe(10000);
    expect(exactWindow({ lo: 9865, hi: 10032 })).toBe(10000);
  });

  it('a half second when no whole one fits, then a tenth', () => {
    expect(exactWindow({ lo: 2480, hi: 2530 })).toBe(2500);
    expect(exactWindow({ lo: 9880, hi: 9960 })).toBe(9900);
    expect(exactWindow({ lo: 296, hi: 304 })).toBe(300);
  });

  it('the middle when no round figure fits, and a roomier bracket may hold one', () => {
    expect(exactWindow({ lo: 1012, hi: 1020 })).toBe(1016);
    expect(exactWindow({ lo: 1002, hi: 1020 }, { lo: 995, hi: 1025 })).toBe(1000);
  });

  it('of several equally round figures, the one nearest the middle', () => {
    expect(exactWindow({ lo: 1900, hi: 3050 })).toBe(2000);
    expect(exactWindow({ lo: 2600, hi: 3900 })).toBe(3000);
  });
});
