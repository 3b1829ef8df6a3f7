// What a user can get wrong about the client command: one clear line on stderr (no stack trace)
// and the documented exit code 2, before anything starts. (A client that makes no request: silent.test.ts.)

import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixture, runClientCli } from './run-client.js';

const oneLine = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('ces-harness:'));

describe('ces-harness client with bad input', () => {
  it('refuses no command with exit 2, before starting anything', async () => {
    for (const args of [['client'], ['client', '--'], ['client', '--scenario', 'steady', '--']]) {
      const run = await runCli(args);
      expect(run.code).toBe(2);
      expect(oneLine(run.stderr)).toEqual([
        expect.stringMatching(/client needs the command to run after --, e\.g\. ces-harness client -- node /),
      ]);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('refuses a command that is not found, and an unknown scenario, with exit 2', async () => {
    const missing = await runClientCli([], ['no-such-client-command-h12']);
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toEqual([
      expect.stringMatching(/"no-such-client-command-h12" was not found on PATH: install it or give its path/),
    ]);
    const path = await runClientCli([], ['./not/here.sh']);
    expect(path.code).toBe(2);
    expect(oneLine(path.stderr)).toEqual([expect.stringMatching(/not an executable file/)]);
    // Executable, but its interpreter is missing: found when it is started, still exit 2.
    const noInterpreter = await runClientCli(['--scenario', 'steady'], [fixture('missing-interpreter.sh')]);
    expect(noInterpreter.code).toBe(2);
    expect(oneLine(noInterpreter.stderr)).toEqual([
      expect.stringMatching(/could not be started \(ENOENT\): check it runs on its own/),
    ]);
    const scenario = await runClientCli(['--scenario', 'nope'], ['true']);
    expect(scenario.code).toBe(2);
    expect(oneLine(scenario.stderr)).toEqual([
      expect.stringMatching(/unknown client scenario "nope"; known: steady, /),
    ]);
  });
});
