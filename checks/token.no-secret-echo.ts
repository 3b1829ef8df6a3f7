import { fail, notTested, pass, type Check } from '../src/runner/check.js';

export const check: Check = {
  id: 'token.no-secret-echo',
  title: 'No answer echoes the client secret',
  spec: '5.9',
  level: 'should',
  description:
    'Good practice in the spirit of §5.9: no response body or header seen during the run contains the client secret (it runs last and looks at every answer).',
  phase: 'last',
  async run({ http }) {
    const echoes = http.secretEchoes();
    if (echoes.length)
      return fail(`the client secret came back in ${echoes.length} answer(s): ${[...new Set(echoes)].join(', ')}`);
    // No answer seen is nothing judged, not "the secret appeared in none".
    if (http.answersSeen() === 0)
      return notTested(
        'no answer from the service was seen during the run, so none could be judged; to test it, run again once the service answers (the checks that errored say why it did not)',
      );
    return pass(`the secret appeared in none of ${http.answersSeen()} answers`);
  },
};
