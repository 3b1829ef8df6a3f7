// Option checking: bad values are usage errors (exit code 2 in the CLI) that say what is wrong.

import { describe, expect, it } from 'vitest';
import { HarnessError } from '../../src/errors.js';
import { resolveOptions, type EmulatorOptions } from '../../src/emulator/options.js';
import { systemClock } from '../../src/time/clock.js';

describe('resolveOptions', () => {
  it('applies the documented defaults', () => {
    const o = resolveOptions();
    expect({ ...o, now: undefined }).toEqual({
      host: '127.0.0.1',
      port: 8443,
      environments: ['sandbox'],
      tokenTtlS: 86_400,
      rateLimit: { rps: 50, burst: 50 },
      // No other limiter model: the bucket above. One client per environment.
      limiter: undefined,
      clients: 1,
      faults: [],
      // No profile: the emulator as the spec reads, with no gateway's habits.
      profiles: [],
      tlsDir: undefined,
      // Business endpoints answer at once unless a slower service is asked for.
      businessLatencyMs: 0,
      // None planted: every environment gets generated credentials.
      credentials: [],
      // No client scenario, nobody observing: `ces-harness client` sets these.
      overrides: [],
      observe: undefined,
      onClientHello: undefined,
      // Every environment alike.
      perEnvironment: {},
      now: undefined,
    });
    expect(o.now).toBe(systemClock.now);
  });

  it.each<[string, EmulatorOptions, RegExp]>([
    ['a negative port', { port: -1 }, /port/],
    ['a port range past 65535', { port: 65_535, environments: ['a', 'b'] }, /port/],
    ['no environments', { environments: [] }, /at least one environment/],
    ['a duplicate environment', { environments: ['a', 'a'] }, /unique/],
    ['an environment name with a space', { environments: ['my env'] }, /my env/],
    ['a zero ttl', { tokenTtlS: 0 }, /ttl/],
    ['a negative rps', { rateLimit: { rps: -1, burst: 1 } }, /rate limit/],
    ['an unknown fault', { faults: ['nope' as never] }, /unknown fault "nope".*token-rotates/],
    [
      'no validate method',
      { environments: ['a'], perEnvironment: { a: { validateMethods: [] } } },
      /perEnvironment\.a\.validateMethods must name GET, POST or both/,
    ],
    [
      'an unknown validate method',
      { environments: ['a'], perEnvironment: { a: { validateMethods: ['PUT' as never] } } },
      /perEnvironment\.a\.validateMethods/,
    ],
    [
      'an intermediate to omit without one',
      { environments: ['a'], perEnvironment: { a: { intermediate: 'omitted' } } },
      /perEnvironment\.a\.intermediate: omitted needs .*intermediate-ca profile/,
    ],
  ])('rejects %s', (_, options, message) => {
    let error: unknown;
    try {
      resolveOptions(options);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HarnessError);
    expect((error as HarnessError).code).toBe('USAGE');
    expect((error as Error).message).toMatch(message);
  });
});

describe('profiles', () => {
  it('refuses an unknown profile, naming the known ones', () => {
    expect(() => resolveOptions({ profiles: ['no-such' as never] })).toThrow(
      /unknown profile "no-such"; known profiles: extra-fields/,
    );
  });
});
