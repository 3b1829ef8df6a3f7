import { fail, pass, skip, type Check } from '../src/runner/check.js';
import { isSuccess } from '../src/runner/expect.js';
import { findTimestamp } from '../src/runner/timestamp.js';

export const check: Check = {
  id: 'health.timestamp',
  title: 'The health check message carries a timestamp with seconds',
  spec: '4.2',
  level: 'must',
  description: 'The health check text contains a date and time with seconds (ISO 8601 / RFC 3339 with any offset, HTTP-date with its RFC 850 and asctime forms, the Common Log Format); the clock skew between the service and this machine is reported.',
  async run({ http, now }) {
    const sent = now();
    const ex = await http.healthCheck();
    const received = now();
    if (!isSuccess(ex)) return skip(`the health check answered ${ex.status}; see health.no-credentials`);
    const text = typeof ex.json === 'string' ? ex.json : ex.text;
    const found = findTimestamp(text);
    if (!found) return fail(`no date and time with seconds in ${http.quote(ex)}; §4.2 wants a timestamp in the message`, [http.evidence(ex)]);
    const skewS = (found.epochMs - (sent + received) / 2) / 1000;
    const zone = found.zoned ? '' : ' (no time zone given; read as UTC)';
    const note = `timestamp "${found.text}"${zone}, clock skew ${skewS >= 0 ? '+' : ''}${skewS.toFixed(1)} s`;
    return { ...pass(note, [http.evidence(ex, note)]), facts: { clock_skew_s: Math.round(skewS * 10) / 10 } };
  },
};
