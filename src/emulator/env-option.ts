// `serve --env-option ENV.KEY=VALUE`: one environment's difference from the others, from the
// command line, so an emulator pair that shows a cutover finding can be started by hand. Parsed
// into the emulator's own perEnvironment option; createEmulator checks what it cannot (the
// environment names, the faults, an intermediate to omit).

import { usageError } from '../errors.js';
import { inRange, rangeText, RANGES, type NumberRange } from '../config/ranges.js';
import type { FaultName } from './faults/index.js';
import type { ProfileName } from './profiles/index.js';
import type { EnvironmentDifferences } from './options.js';

/** The emulator-wide limit, which an environment's rate-limit or burst alone leaves half in place. */
interface Defaults {
  rateLimit: { rps: number; burst: number };
}

type Setter = (d: EnvironmentDifferences, value: string, where: string, defaults: Defaults) => void;

const numberIn = (value: string, where: string, range: NumberRange): number => {
  const n = Number(value);
  if (value.trim() === '' || !inRange(range, n))
    throw usageError(`--env-option ${where}=${value}: give ${rangeText(range)}`);
  return n;
};

/** A key with one value (`ca=other`, `intermediate=omitted`): anything else is a typo. */
function onlyValue<V extends string>(only: V, value: string, where: string): V {
  if (value !== only) throw usageError(`--env-option ${where}=${value}: the only value is ${only}`);
  return only;
}

/** Each key a user may give, and what it sets. */
export const ENV_OPTION_KEYS: Readonly<Record<string, { what: string; set: Setter }>> = {
  'token-lifetime': {
    what: 'token lifetime (s)',
    set: (d, v, w) => void (d.tokenTtlS = numberIn(v, w, RANGES.tokenLifetimeS)),
  },
  'rate-limit': {
    what: 'token bucket refill per client (0: off)',
    set: (d, v, w, def) =>
      void (d.rateLimit = { ...(d.rateLimit ?? def.rateLimit), rps: numberIn(v, w, RANGES.emulatorRps) }),
  },
  burst: {
    what: 'token bucket size per client',
    set: (d, v, w, def) =>
      void (d.rateLimit = { ...(d.rateLimit ?? def.rateLimit), burst: numberIn(v, w, RANGES.burst) }),
  },
  'business-latency': {
    what: 'ms each business endpoint waits',
    set: (d, v, w) => void (d.businessLatencyMs = numberIn(v, w, RANGES.businessLatencyMs)),
  },
  ca: { what: '`other`: a certificate from a CA of its own', set: (d, v, w) => void (d.ca = onlyValue('other', v, w)) },
  'certificate-days': {
    what: 'days the server certificate stays valid',
    set: (d, v, w) => void (d.certificateDays = numberIn(v, w, RANGES.certificateDays)),
  },
  intermediate: {
    what: '`omitted`: the leaf served without its intermediate (with --profile intermediate-ca)',
    set: (d, v, w) => void (d.intermediate = onlyValue('omitted', v, w)),
  },
  'validate-methods': {
    what: 'the methods /tokens/validate accepts: GET, POST or GET+POST',
    set: (d, v, w) => {
      const methods = v.split('+');
      if (!methods.every((m): m is 'GET' | 'POST' => m === 'GET' || m === 'POST'))
        throw usageError(`--env-option ${w}=${v}: give GET, POST or GET+POST`);
      d.validateMethods = methods;
    },
  },
  fault: {
    what: 'a fault of this environment alone (repeatable)',
    set: (d, v) => void (d.faults = [...(d.faults ?? []), v as FaultName]),
  },
  profile: {
    what: 'a profile of this environment alone, its answers only (repeatable)',
    set: (d, v) => void (d.profiles = [...(d.profiles ?? []), v as ProfileName]),
  },
};

/** Old key names kept working for scripts that use them (docs/cutover.md lists them as deprecated). */
const ENV_OPTION_ALIASES: Readonly<Record<string, string>> = { 'token-ttl': 'token-lifetime' };

/** `production.token-lifetime=3600`, … → { production: { tokenTtlS: 3600 } }; a malformed one is a usage error. */
export function environmentDifferences(
  given: readonly string[],
  defaults: Defaults,
): Record<string, EnvironmentDifferences> {
  const out: Record<string, EnvironmentDifferences> = {};
  for (const text of given) {
    const m = /^([A-Za-z0-9][A-Za-z0-9_-]*)\.([a-z-]+)=(.*)$/.exec(text);
    if (!m) throw usageError(`--env-option ${text}: write ENV.KEY=VALUE, e.g. production.token-lifetime=3600`);
    const [, env, name, value] = m as unknown as [string, string, string, string];
    const key = Object.hasOwn(ENV_OPTION_ALIASES, name) ? ENV_OPTION_ALIASES[name]! : name;
    const option = ENV_OPTION_KEYS[key];
    if (!Object.hasOwn(ENV_OPTION_KEYS, key) || !option)
      throw usageError(`--env-option ${text}: unknown key ${name}; known: ${Object.keys(ENV_OPTION_KEYS).join(', ')}`);
    option.set((out[env] ??= {}), value, `${env}.${name}`, defaults);
  }
  return out;
}
