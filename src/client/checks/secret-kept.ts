// §5.9: secrets live in environment variables, not in code or logs; the secret belongs in the
// POST /tokens body and nowhere else, never in a URL, a query string, a header or the client's output.

import { evidenceOf, judged, type ClientCheck } from './types.js';

export const check: ClientCheck = {
  id: 'client.secret-kept',
  title: 'The client secret appears only in the POST /tokens body',
  spec: '5.9',
  level: 'must',
  judgesSilentRuns: true,
  description:
    'the secret never in a URL path, a query string, any header, or what the client prints (the client is stopped if it prints it)',
  judge(record) {
    const leaks = record.requests.filter((r) => r.secretIn.length > 0);
    const places = [
      ...new Set(leaks.flatMap((r) => r.secretIn)),
      ...(record.secretPrinted ? ['the client output (stdout/stderr)'] : []),
    ];
    if (places.length === 0)
      return judged(
        'pass',
        `the secret was in no URL, query string or header of ${record.requests.length} requests, nor in the client output`,
      );
    return judged(
      'fail',
      `the client secret appeared in ${places.join(', ')}; keep it in the POST /tokens body only (§5.9: out of code and logs)`,
      [
        ...leaks.map((r) => evidenceOf(r, `secret in ${r.secretIn.join(', ')}`)),
        ...(record.secretPrinted ? [{ request: 'client output', note: 'printed the secret: client stopped' }] : []),
      ],
    );
  },
};
