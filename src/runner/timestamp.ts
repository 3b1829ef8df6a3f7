// Finds the timestamp in the health check's text (§4.2: "date and time with seconds"). The spec
// does not fix a format, so the common ones are accepted: ISO 8601 / RFC 3339 (with T or a space,
// as Ruby and Python print them), HTTP-date / RFC 2822, its obsolete RFC 850 form (which RFC 9110
// §5.6.7 still asks recipients to read), C's asctime with a zone, and the Common Log Format of
// Apache and nginx access logs.

import type { Exchange } from '../http/exchange.js';
import type { ServiceClient } from '../http/service-client.js';
import type { ClockReading } from '../time/clock-skew.js';

export interface FoundTimestamp {
  text: string;
  epochMs: number;
  /** False when the text gave no zone and UTC was assumed. */
  zoned: boolean;
  /**
   * Which form, and its shape with every number a `d` ("ISO 8601 d-d-d d:d:d UTC"): the same
   * on two services that print alike, whatever the time, so cutover can set them side by side.
   */
  format: string;
}

const MONTHS = 'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec';
const ISO = /(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?\s?(Z|UTC|GMT|[+-]\d{2}:?\d{2})?/;
const HTTP_DATE = new RegExp(`\\b(\\d{1,2}) (${MONTHS}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) ?(GMT|UTC|[+-]\\d{4})?`);
const RFC850 = new RegExp(
  `\\b(\\d{1,2})-(${MONTHS})-(\\d{2}|\\d{4}) (\\d{2}):(\\d{2}):(\\d{2}) ?(GMT|UTC|[+-]\\d{4})?`,
);
const CLF = new RegExp(`\\b(\\d{1,2})/(${MONTHS})/(\\d{4}):(\\d{2}):(\\d{2}):(\\d{2})(?: ([+-]\\d{4}))?`);
const ASCTIME = new RegExp(`\\b(${MONTHS}) +(\\d{1,2}) (\\d{2}):(\\d{2}):(\\d{2}) (?:(UTC|GMT|[+-]\\d{4}) )?(\\d{4})`);

export function findTimestamp(text: string): FoundTimestamp | undefined {
  const iso = ISO.exec(text);
  if (iso) {
    const [whole, y, mo, d, h, mi, s, frac = '', zone] = iso;
    return build(
      'ISO 8601',
      whole,
      Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!, Math.round(Number(`0${frac || '.0'}`) * 1000)),
      zone,
    );
  }
  const http = HTTP_DATE.exec(text);
  if (http) {
    const [whole, d, mon, y, h, mi, s, zone] = http;
    return build('HTTP-date', whole, Date.UTC(+y!, month(mon!), +d!, +h!, +mi!, +s!), zone);
  }
  const rfc850 = RFC850.exec(text);
  const clf = rfc850 ? undefined : CLF.exec(text);
  const dayFirst = rfc850 ?? clf;
  if (dayFirst) {
    const [whole, d, mon, y, h, mi, s, zone] = dayFirst;
    return build(
      rfc850 ? 'RFC 850' : 'Common Log Format',
      whole,
      Date.UTC(fullYear(y!), month(mon!), +d!, +h!, +mi!, +s!),
      zone,
    );
  }
  const asc = ASCTIME.exec(text);
  if (asc) {
    const [whole, mon, d, h, mi, s, zone, y] = asc;
    return build('asctime', whole, Date.UTC(+y!, month(mon!), +d!, +h!, +mi!, +s!), zone);
  }
  return undefined;
}

function build(form: string, text: string, utcMs: number, zone: string | undefined): FoundTimestamp | undefined {
  if (Number.isNaN(utcMs)) return undefined;
  // Digit runs and spaces collapsed: a day printed unpadded or space-padded (asctime), or a
  // fraction whose trailing zeros are dropped, is the same format on another day.
  const shape = text.replace(/\d+/g, 'd').replace(/\s+/g, ' ').replace(new RegExp(MONTHS, 'g'), 'Mon');
  return { text, epochMs: utcMs - offsetMs(zone), zoned: zone !== undefined, format: `${form} ${shape}` };
}

function offsetMs(zone: string | undefined): number {
  if (!zone || zone === 'Z' || zone === 'UTC' || zone === 'GMT') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!m) return 0;
  const minutes = +m[2]! * 60 + +m[3]!;
  return (m[1] === '-' ? -1 : 1) * minutes * 60_000;
}

/** RFC 850's two-digit years: RFC 9110 reads one more than 50 years ahead as the past century; 70 is that line for decades to come. */
const fullYear = (y: string) => (y.length === 4 ? +y : +y + (+y < 70 ? 2000 : 1900));

const month = (name: string) => MONTHS.split('|').indexOf(name);

/**
 * The health check's timestamp as a reading of the service's clock, when it names its zone: a
 * local time read as UTC would be hours off, and would only widen the skew, never narrow it.
 */
export function healthClockReading(ex: Exchange): ClockReading | undefined {
  if (ex.status < 200 || ex.status >= 300) return undefined;
  const found = findTimestamp(typeof ex.json === 'string' ? ex.json : ex.text);
  if (!found?.zoned) return undefined;
  // Fractions, if given, are dropped: the reading then means the same whole second as a Date header.
  return { serviceMs: Math.floor(found.epochMs / 1000) * 1000, sentAt: ex.sentAt, receivedAt: ex.receivedAt };
}

/** POST /tokens/health_check, its timestamp noted as a reading of the service's clock. */
export async function readHealthClock(http: ServiceClient): Promise<Exchange> {
  const ex = await http.healthCheck();
  const reading = healthClockReading(ex);
  if (reading) http.noteClock(reading);
  return ex;
}
