import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { isSuccess } from '../src/runner/expect.js';
import { findTimestamp, healthClockReading } from '../src/runner/timestamp.js';
import { describeSkew, skewMidS } from '../src/time/clock-skew.js';

export const check: Check = {
  id: 'health.timestamp',
  title: 'The health check message carries a timestamp with seconds',
  spec: '4.2',
  level: 'must',
  description:
    "The health check text contains a date and time with seconds (ISO 8601 / RFC 3339 with any offset, HTTP-date with its RFC 850 and asctime forms, the Common Log Format); the clock skew between the service and this machine, measured from it and every answer's Date header, is reported (every expiry judgement draws its edge there).",
  async run({ http }) {
    const ex = await http.healthCheck();
    if (!isSuccess(ex)) return skip(`the health check answered ${ex.status}; see health.no-credentials`);
    const text = typeof ex.json === 'string' ? ex.json : ex.text;
    const found = findTimestamp(text);
    if (!found)
      return fail(`no date and time with seconds in ${http.quote(ex)}; §4.2 wants a timestamp in the message`, [
        http.evidence(ex),
      ]);
    const reading = healthClockReading(ex);
    if (reading) http.noteClock(reading);
    // A skewed clock breaks no rule: it is measured, reported, and allowed for at every expiry edge.
    const skew = http.measuredSkew();
    const zone = found.zoned ? '' : ' (no time zone given; read as UTC, and not used to measure the skew)';
    const note = `timestamp "${found.text}"${zone}, clock skew ${skew ? describeSkew(skew) : 'not measured'}`;
    // The format for cutover's side by side; the skew only where it was measured.
    const facts = {
      timestamp_format: found.format,
      ...(skew ? { clock_skew_s: Math.round(skewMidS(skew) * 10) / 10 } : {}),
    };
    return { ...pass(note, [http.evidence(ex, note)]), facts };
  },
};
