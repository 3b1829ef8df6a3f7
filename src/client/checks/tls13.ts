// §5.8: TLS 1.3 on every connection, with one of its three suites. Judged from each ClientHello as
// it came off the wire, so a client that tries TLS 1.2 first and falls back is seen too.

import { TLS13_SUITES } from '../../emulator/tls-suites.js';
import { judged, type ClientCheck } from './types.js';

export const check: ClientCheck = {
  id: 'client.tls13',
  title: 'Every connection offers TLS 1.3 with a §5.8 suite',
  spec: '5.8',
  level: 'must',
  description: 'each ClientHello offers TLS 1.3 and at least one of the three §5.8 suites',
  judge(record) {
    if (record.hellos.length === 0) return judged('fail', 'the client opened no TLS connection');
    const allowed: readonly string[] = TLS13_SUITES;
    const bad = record.hellos.flatMap((h, i) => {
      if (!h.tls) return [{ i, why: 'no TLS ClientHello (plain HTTP, or unreadable)' }];
      if (!h.versions.includes('TLSv1.3')) return [{ i, why: `offered ${h.versions.join(', ')} only` }];
      if (!h.suites.some((s) => allowed.includes(s))) return [{ i, why: `offered none of ${TLS13_SUITES.join(', ')}` }];
      return [];
    });
    const summary = (h: (typeof record.hellos)[number]) =>
      `versions ${h.versions.join(', ')}; suites ${h.suites.slice(0, 6).join(', ')}${h.suites.length > 6 ? ', …' : ''}`;
    if (bad.length === 0)
      return judged('pass', `${record.hellos.length} connection(s), each offering TLS 1.3`, [
        { request: 'ClientHello #1', note: summary(record.hellos[0]!) },
      ]);
    return judged(
      'fail',
      `${bad.length} of ${record.hellos.length} connection(s) did not offer TLS 1.3 with a §5.8 suite: connection #${bad[0]!.i + 1} ${bad[0]!.why}; §5.8 requires TLS 1.3`,
      bad.map(({ i, why }) => ({ request: `ClientHello #${i + 1}`, note: `${why} (${summary(record.hellos[i]!)})` })),
    );
  },
};
