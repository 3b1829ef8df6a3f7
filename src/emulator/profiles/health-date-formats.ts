// The health text's timestamp in the other formats services print: §4.2 asks for "a date and time
// with seconds", not for one format. Each is a profile of its own, so a false alarm names the
// format; the offsets are not zero on purpose, so a parser that drops the zone reads the wrong
// instant (test/integration/profiles.test.ts compares the clock skew check reports with zero).

import { healthText } from '../behaviour.js';
import { text } from '../replies.js';
import { defineProfile } from './types.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/** The wall clock at a fixed UTC offset, read with the getUTC* methods. */
const at = (nowMs: number, offsetMin: number) => new Date(nowMs + offsetMin * 60_000);

/** `+01:00` or, compact, `-0500`. */
function offsetText(offsetMin: number, colon: boolean): string {
  const abs = Math.abs(offsetMin);
  return `${offsetMin < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}${colon ? ':' : ''}${two(abs % 60)}`;
}

const healthProfile = <const N extends string>(name: N, description: string, stamp: (nowMs: number) => string) =>
  defineProfile({
    name,
    description,
    override: () => ({ healthReply: (nowMs) => text(200, healthText(stamp(nowMs))) }),
  });

export const healthIso8601 = healthProfile(
  'health-iso8601',
  'the health timestamp is RFC 3339 with milliseconds and a +01:00 offset (2026-11-26T16:04:05.123+01:00), as Java, .NET and JavaScript print it',
  (nowMs) => `${at(nowMs, 60).toISOString().slice(0, 23)}${offsetText(60, true)}`,
);

export const healthHttpDate = healthProfile(
  'health-http-date',
  'the health timestamp is an HTTP-date (Thu, 26 Nov 2026 15:04:05 GMT, RFC 9110 IMF-fixdate), as web servers print it',
  (nowMs) => new Date(nowMs).toUTCString(),
);

export const healthClf = healthProfile(
  'health-clf',
  'the health timestamp is in the Common Log Format with a -05:00 offset ([26/Nov/2026:10:04:05 -0500]), as Apache and nginx logs print it',
  (nowMs) => {
    const d = at(nowMs, -300);
    return `[${two(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${d.toISOString().slice(11, 19)} ${offsetText(-300, false)}]`;
  },
);
