import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../src/errors.js';
import { FLAGS, flagValue, helpText, parseCommandLine } from '../../src/cli/flags.js';
import { environmentDifferences } from '../../src/emulator/env-option.js';

function usage(argv: string[]): HarnessError {
  try {
    parseCommandLine(argv);
  } catch (err) {
    if (err instanceof HarnessError) return err;
    throw err;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

describe('parseCommandLine', () => {
  it('reads typed values from the flag table', () => {
    const { command, options } = parseCommandLine([
      'check',
      '--env',
      'production',
      '--token-lifetime',
      '60',
      '--only',
      'tls.*,token.issue',
      '--only',
      'health.timestamp',
      '--allow-production-load',
    ]);
    expect(command).toBe('check');
    expect(options.env).toBe('production');
    expect(options['token-lifetime']).toBe(60);
    expect(options.only).toEqual(['tls.*', 'token.issue', 'health.timestamp']);
    expect(options['allow-production-load']).toBe(true);
  });

  it.each([
    [['frobnicate'], /unknown command "frobnicate"/],
    [['check', '--nope'], /unknown flag --nope for `ces-harness check`/],
    [['check', '--port', '1'], /--port does not apply to `ces-harness check`/],
    [
      ['check', '--token-lifetime', 'soon'],
      /^--token-lifetime must be a whole number of seconds from 1 to 172800, got soon$/,
    ],
    [
      ['check', '--token-lifetime', '-5'],
      /^--token-lifetime must be a whole number of seconds from 1 to 172800, got -5$/,
    ],
    [['check', '--env'], /--env needs a value/],
    [['check', 'stray'], /unexpected argument/],
  ])('%j is a usage error (exit 2): %s', (argv, message) => {
    const err = usage(argv);
    expect(err.code).toBe('USAGE');
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(message);
    expect(err.message).not.toMatch(/\n/);
  });

  it('a flag not given takes the typed default its table entry carries; a given 0 stays 0', () => {
    const { options } = parseCommandLine(['serve', '--port', '0']);
    expect(flagValue(options, 'port')).toBe(0);
    expect(flagValue(options, 'burst')).toBe(50);
    expect(flagValue(options, 'host')).toBe('127.0.0.1');
    expect(flagValue(parseCommandLine(['k8s']).options, 'parallelism')).toBe(2);
    expect(helpText('serve')).toContain(
      'listen port; 0 picks a free one (environment i listens on P+i) (0–65535; default: 8443)',
    );
  });

  it("keeps --limiter's own commas (KIND:KEY=V,…), as its --help example gives them, where other lists split at commas", () => {
    const example = /e\.g\. (\S+);/.exec(helpText('serve'))?.[1];
    expect(example).toBe('bucket:rate=10,burst=10+fixed:limit=600,window=60');
    const { options } = parseCommandLine(['serve', '--limiter', example!, '--limiter', 'queue:rate=10,burst=5']);
    expect(options.limiter).toEqual([example, 'queue:rate=10,burst=5']);
    expect(parseCommandLine(['check', '--only', 'token.lifetime,tls.version']).options.only).toEqual([
      'token.lifetime',
      'tls.version',
    ]);
  });

  it('treats no command and --help as help, --version as version', () => {
    expect(parseCommandLine([]).command).toBe('help');
    expect(parseCommandLine(['--help']).command).toBe('help');
    expect(parseCommandLine(['--version']).command).toBe('version');
  });

  it('generates per-command help from the table, with defaults', () => {
    const text = helpText('check');
    for (const [name, spec] of Object.entries(FLAGS)) {
      if ((spec.commands as readonly string[]).includes('check')) expect(text).toContain(`--${name}`);
      else expect(text).not.toContain(`--${name} `);
    }
    expect(text).toContain('(1–172800; default: 86400 (§5.4))');
  });
});

describe('deprecated names: one documented name each, the old one still working', () => {
  it.each([
    { argv: ['serve', '--token-lifetime', '30'], want: 30 },
    { argv: ['serve', '--token-ttl', '30'], want: 30 },
    { argv: ['serve'], want: undefined },
  ])('$argv: --token-lifetime $want', ({ argv, want }) => {
    const { options } = parseCommandLine(argv);
    expect(options['token-lifetime']).toBe(want);
    expect(options['token-ttl']).toBeUndefined();
  });

  it('refuses both names at once, and the old name out of range, in its own words', () => {
    expect(usage(['serve', '--token-ttl', '30', '--token-lifetime', '30']).message).toMatch(
      /^--token-ttl is the old name of --token-lifetime: give only --token-lifetime/,
    );
    expect(usage(['serve', '--token-ttl', '0']).message).toMatch(/^--token-ttl must be a whole number of seconds/);
  });

  it('--help shows the documented name only', () => {
    const help = helpText('serve');
    expect(help).toContain('--token-lifetime S');
    expect(help).not.toContain('--token-ttl');
  });

  it.each(['token-lifetime', 'token-ttl'])('--env-option production.%s=600 sets that lifetime', (key) => {
    const differences = environmentDifferences([`production.${key}=600`], { rateLimit: { rps: 0, burst: 0 } });
    expect(differences).toEqual({ production: { tokenTtlS: 600 } });
  });
});
