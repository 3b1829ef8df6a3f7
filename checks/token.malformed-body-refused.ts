import { fail, pass, type Check } from '../src/runner/check.js';
import { CARRIES_WORKING_TOKEN, handedOutTokenNote, leakProblem } from '../src/runner/expect.js';

export const check: Check = {
  id: 'token.malformed-body-refused',
  title: 'POST /tokens refuses bodies that are not the §4.1 shape',
  spec: '4.1',
  level: 'must',
  description:
    'Broken JSON, the credentials without the `token` wrapper, a missing client_secret, a non-string client_id and an empty object are each refused with a 4xx, never a 5xx, and the refusal carries no token or other credential (body or header) and does not echo the secret.',
  async run({ http, target }) {
    const { clientId, clientSecret } = target.credentials;
    // The flat and partial bodies carry the real credentials, so a lenient service would visibly
    // hand out a token for them.
    const cases: Array<{ name: string; body: string }> = [
      { name: 'broken JSON', body: '{"token": {"client_id": ' },
      { name: 'no "token" wrapper', body: JSON.stringify({ client_id: clientId, client_secret: clientSecret }) },
      { name: 'client_secret missing', body: JSON.stringify({ token: { client_id: clientId } }) },
      {
        name: 'client_id not a string',
        body: JSON.stringify({ token: { client_id: 12345, client_secret: clientSecret } }),
      },
      { name: 'empty object', body: '{}' },
    ];
    const answers = await Promise.all(
      cases.map(async (c) => ({
        c,
        ex: await http.send('POST', '/tokens', { body: c.body, headers: { 'content-type': 'application/json' } }),
      })),
    );
    const evidence = answers.map(({ c, ex }) => http.evidence(ex, c.name));
    const wrong = answers.filter(({ ex }) => ex.status < 400 || ex.status >= 500);
    if (wrong.length) {
      const list = wrong.map(({ c, ex }) => `${c.name} → ${ex.status} ${http.quote(ex, 60)}`).join('; ');
      return fail(
        `POST /tokens did not refuse: ${list}; §4.1 wants {"token":{"client_id","client_secret"}} with both strings, so anything else must get a 4xx`,
        evidence,
      );
    }
    const leaking: string[] = [];
    for (const { c, ex } of answers) {
      // A token the run never saw (a debug session's, say) is found by trying what the refusal carries.
      const problem =
        leakProblem(ex) ?? ((await handedOutTokenNote(http, ex))?.works ? CARRIES_WORKING_TOKEN : undefined);
      if (problem !== undefined) leaking.push(`${c.name} → ${ex.status} ${http.quote(ex, 100)} (${problem})`);
    }
    if (leaking.length)
      return fail(
        `POST /tokens refused malformed bodies but handed out credentials: ${leaking.join('; ')}; a refusal must carry no token and never the secret (§4.1 rule 2)`,
        evidence,
      );
    return pass(
      `${cases.length} malformed bodies refused (${[...new Set(answers.map((a) => a.ex.status))].join(', ')})`,
      evidence,
    );
  },
};
