// `client` takes the user's command after `--`, untouched: its own flags are never read as ours.

import { describe, expect, it } from 'vitest';
import { helpText, parseCommandLine } from '../../src/cli/flags.js';

describe('parseCommandLine for client', () => {
  it('splits at the first --: our flags before, the command and its own flags after', () => {
    const parsed = parseCommandLine([
      'client',
      '--scenario',
      'steady',
      '--time-limit',
      '9',
      '--',
      'node',
      'c.js',
      '--scenario',
      'x',
      '--',
    ]);
    expect(parsed).toEqual({
      command: 'client',
      options: { scenario: ['steady'], 'time-limit': 9 },
      clientArgv: ['node', 'c.js', '--scenario', 'x', '--'],
    });
  });

  it('has no command without --, and refuses a bare positional with the usual line', () => {
    expect(parseCommandLine(['client']).clientArgv).toBeUndefined();
    expect(() => parseCommandLine(['client', 'node', 'c.js'])).toThrow(/unexpected argument: node/);
  });

  it('keeps -- meaningless for the other commands', () => {
    expect(() => parseCommandLine(['check', '--', 'node'])).toThrow(/unexpected argument/);
  });

  it('documents the form in --help', () => {
    expect(helpText('client')).toMatch(/^Usage: ces-harness client \[flags\] -- <command> \[args\.\.\.\]/);
    expect(helpText('client')).toMatch(/--time-limit S .*default: 30/);
    expect(helpText()).toMatch(/ {2}client +runs your own client/);
  });
});
