// §4.1: POST /tokens with Content-Type: application/json and the nested body
// {"token":{"client_id":…,"client_secret":…}}.

import { TOKEN_BODY_SHAPE } from '../body-shape.js';
import { evidenceOf, isTokenFetch, judged, type ClientCheck } from './types.js';

export const check: ClientCheck = {
  id: 'client.token-request',
  title: 'Tokens are fetched with POST /tokens, a JSON content type and the nested §4.1 body',
  spec: '4.1',
  level: 'must',
  description:
    'every token request is `POST /tokens`, `Content-Type: application/json`, body `{"token":{"client_id","client_secret"}}`',
  judge(record) {
    const fetches = record.requests.filter(isTokenFetch);
    if (fetches.length === 0)
      return judged('fail', 'the client never called POST /tokens, so it cannot have a token the service issued');
    const wrong = fetches.flatMap((r) => {
      const problems = [
        r.method === 'POST' ? null : `method ${r.method}`,
        /^application\/json\b/i.test(r.contentType)
          ? null
          : `Content-Type ${r.contentType === '' ? '(none)' : JSON.stringify(r.contentType)}`,
        r.bodyShape === TOKEN_BODY_SHAPE ? null : `body ${r.bodyShape}`,
      ].filter((p) => p !== null);
      return problems.length === 0 ? [] : [{ r, problems }];
    });
    if (wrong.length === 0)
      return judged(
        'pass',
        `${fetches.length} token request(s), each POST with application/json and ${TOKEN_BODY_SHAPE}`,
        [evidenceOf(fetches[0]!)],
      );
    return judged(
      'fail',
      `${wrong.length} of ${fetches.length} token request(s) sent ${wrong[0]!.problems.join(', ')}; §4.1 wants POST, Content-Type: application/json and ${TOKEN_BODY_SHAPE}`,
      wrong.map(({ r, problems }) => evidenceOf(r, problems.join(', '))),
    );
  },
};
