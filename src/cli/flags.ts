// Every flag in one declarative table: the parser, the validation and `--help` all come from it.
// Parsing is a pure function (argv in, typed options or a HarnessError out) so it is tested directly.

import { parseArgs } from 'node:util';
import { RANGES, parseInRange, rangeText, type NumberRange } from '../config/ranges.js';
import { usageError } from '../errors.js';

export const COMMANDS = {
  run: 'the main job: conformance checks, a short load run and rate-limit sizing, one report folder (built-in emulator when no target is configured)',
  check: 'conformance checks only',
  load: 'the k6 scenarios, with thresholds; results folded into the report',
  ratelimit: 'rate-limit discovery and backoff sizing',
  serve: 'the reference emulator of the service',
  k8s: 'k6-operator manifests for running the load on Kubernetes',
  checks: 'lists the conformance check ids (the values of --only and --skip)',
  cutover:
    'before production cutover: a production-safe check on production and a full one on sandbox, side by side, with a readiness verdict (READY 0, NOT READY 1, NOT TESTED 1)',
  client: "runs your own client (after --) against the built-in emulator and judges it by the spec's client-side rules",
} as const;
export type Command = keyof typeof COMMANDS;

const TARGET: Command[] = ['run', 'check', 'load', 'ratelimit'];
const ALL = Object.keys(COMMANDS) as Command[];

type Kind = 'string' | 'boolean' | 'number' | 'list';

interface FlagSpec {
  kind: Kind;
  arg?: string;
  description: string;
  /** The value when the flag is not given (flagValue); --help shows it unless `default` says more. */
  value?: string | number;
  /** The default as --help words it, where it is not one value (it depends on the config, or is made at run time). */
  default?: string;
  /** Number flags only: the values accepted, named in the error and in --help. */
  range?: NumberRange;
  /** The one-letter form (`-h`), for the flags people type from habit. */
  short?: string;
  /**
   * An old name kept working for scripts that use it: its value goes to this flag; not in --help
   * or the docs tables (docs/configuration.md lists it as deprecated).
   */
  aliasOf?: string;
  /**
   * List flags only: each value is kept whole, never split at commas, because commas are part of
   * it (`--limiter bucket:rate=10,burst=10`); such a flag is repeated, or joins values its own way.
   */
  commasInside?: true;
  commands: readonly Command[];
}

export const FLAGS = {
  config: {
    kind: 'string',
    arg: 'FILE',
    description: 'YAML config',
    default: 'ces-harness.yaml if present',
    commands: [...TARGET, 'k8s', 'cutover'],
  },
  env: {
    kind: 'string',
    arg: 'NAME',
    description: 'which environment of the config',
    default: "the config's target, else sandbox",
    commands: [...TARGET, 'k8s'],
  },
  'base-url': {
    kind: 'string',
    arg: 'URL',
    description: "overrides the environment's base_url (credentials then come from CES_CLIENT_ID / CES_CLIENT_SECRET)",
    commands: [...TARGET, 'k8s'],
  },
  ca: {
    kind: 'string',
    arg: 'FILE',
    description: 'extra trusted CA certificate (PEM), for TLS checks, undici and k6 alike',
    commands: [...TARGET, 'cutover'],
  },
  'report-dir': {
    kind: 'string',
    arg: 'DIR',
    description: 'where the report files go',
    default: 'reports/<UTC yyyymmddThhmmssZ>-<env>/',
    commands: [...TARGET, 'client', 'cutover'],
  },
  'token-lifetime': {
    kind: 'number',
    arg: 'S',
    description: 'the token lifetime the service promises (serve: gives its tokens), seconds',
    default: '86400 (§5.4)',
    range: RANGES.tokenLifetimeS,
    commands: [...TARGET, 'cutover', 'serve'],
  },
  'expiry-wait': {
    kind: 'number',
    arg: 'S',
    description: 'longest the run may wait in-process for a token to expire',
    default: '0',
    range: RANGES.expiryWaitS,
    commands: [...TARGET, 'cutover'],
  },
  'clock-tolerance': {
    kind: 'number',
    arg: 'S',
    description: 'allowed clock skew between harness and service',
    default: '2',
    range: RANGES.clockToleranceS,
    commands: [...TARGET, 'cutover'],
  },
  'request-timeout': {
    kind: 'number',
    arg: 'S',
    description: 'how long one request may take to answer in full, connect included, seconds; config request_timeout_s',
    default: '10',
    range: RANGES.requestTimeoutS,
    commands: [...TARGET, 'cutover'],
  },
  'allow-production-load': {
    kind: 'boolean',
    description: 'permits load and rate-limit probing (and k8s load manifests) against a production environment',
    default: 'refused otherwise',
    commands: [...TARGET, 'k8s', 'cutover'],
  },
  'verbose-bodies': {
    kind: 'boolean',
    description:
      "quote the service's answers whole in reports and messages (secrets and tokens still hidden); by default only the spec's fields (error, token_type, valid, expires_at, message) are quoted, every other value shown as its type and length",
    default: 'off',
    commands: [...TARGET, 'cutover'],
  },
  only: {
    kind: 'list',
    arg: 'ID',
    description: 'run only these checks (repeatable; `tls.*` selects a group)',
    commands: ['run', 'check'],
  },
  skip: {
    kind: 'list',
    arg: 'ID',
    description: 'leave out these checks (repeatable; `ratelimit.*` selects a group)',
    commands: ['run', 'check'],
  },
  ledger: {
    kind: 'string',
    arg: 'FILE',
    description: 'token ledger (0600) that proves expiry across runs; `off` disables it',
    default: '.ces-harness/token-ledger.json',
    commands: ['run', 'check', 'load', 'ratelimit', 'cutover'],
  },
  history: {
    kind: 'string',
    arg: 'FILE',
    description: 'run history (JSON Lines, 0600) that the report compares this run with; `off` disables it',
    default: '.ces-harness/history.jsonl (none for the built-in emulator)',
    commands: [...TARGET, 'cutover'],
  },
  scenario: {
    kind: 'list',
    arg: 'NAME',
    description: 'k6 scenario to run, or for client a client scenario (repeatable)',
    default: 'all',
    commands: ['load', 'k8s', 'client'],
  },
  rate: {
    kind: 'number',
    arg: 'RPS',
    description: 'arrival rate of the throughput and token scenarios, per second; config load.rate',
    default: '20',
    range: RANGES.loadRate,
    commands: ['run', 'load', 'k8s'],
  },
  duration: {
    kind: 'number',
    arg: 'S',
    description: 'how long each k6 scenario runs, seconds; config load.duration_s',
    default: '10; 5 in run',
    range: RANGES.durationS,
    commands: ['run', 'load', 'k8s'],
  },
  vus: {
    kind: 'number',
    arg: 'N',
    description: 'k6 virtual users per scenario; config load.vus',
    default: '5',
    range: RANGES.vus,
    commands: ['run', 'load', 'k8s'],
  },
  'max-rps': {
    kind: 'number',
    arg: 'RPS',
    description: 'the rate-limit probe never sends faster than this; config rate_limit.max_rps',
    default: '200',
    range: RANGES.maxRps,
    commands: ['run', 'check', 'ratelimit', 'cutover'],
  },
  'limit-wait': {
    kind: 'number',
    arg: 'S',
    description:
      "how long one request of the checks may wait out the rate limit's Retry-Afters, seconds, once its turn comes (once the limit refuses, the checks' requests take turns in it); past it the check is not tested; config rate_limit.limit_wait_s",
    default: '60',
    range: RANGES.limitWaitS,
    commands: ['run', 'check', 'cutover'],
  },
  'time-limit': {
    kind: 'number',
    arg: 'S',
    description: 'longest the client may run per scenario before its process group is killed',
    value: 30,
    range: RANGES.clientTimeLimitS,
    commands: ['client'],
  },
  segments: {
    kind: 'number',
    arg: 'N',
    description: 'split each scenario across N local k6 processes (execution segments) and merge',
    value: 1,
    range: RANGES.segments,
    commands: ['load'],
  },
  'max-duration': {
    kind: 'number',
    arg: 'S',
    description: "the rate-limit probe's time cap, seconds (about 2.5 windows for a window limiter: 150 for a minute)",
    default: '150, 1.25 × the horizon, at least 120',
    range: RANGES.probeDurationS,
    commands: ['ratelimit'],
  },
  horizon: {
    kind: 'number',
    arg: 'S',
    description:
      "how long a client's life the rate-limit proof covers, seconds: each k6 proof round runs this long, a limit on a window longer than half of it is not tested; config rate_limit.horizon_s",
    default: '120 (a one-minute window, twice); 5 in run',
    range: RANGES.horizonS,
    commands: ['run', 'ratelimit'],
  },
  fleet: {
    kind: 'number',
    arg: 'N',
    description: 'also size the policy for N client instances sharing the limit (simulated, see docs/fleet.md)',
    default: 'one client; config rate_limit.fleet',
    range: RANGES.fleet,
    commands: ['ratelimit'],
  },
  parallelism: {
    kind: 'number',
    arg: 'N',
    description: 'k6-operator runner pods',
    value: 2,
    range: RANGES.parallelism,
    commands: ['k8s'],
  },
  'out-dir': { kind: 'string', arg: 'DIR', description: 'where the manifests go', value: 'k8s/', commands: ['k8s'] },
  fault: {
    kind: 'list',
    arg: 'NAME',
    description: 'a deliberate deviation from the spec in the emulator (repeatable; built-in emulator only)',
    commands: [...TARGET, 'serve'],
  },
  profile: {
    kind: 'list',
    arg: 'NAME',
    description:
      'a conformant variation real deployments show (JWT tokens, extra fields, a gateway, …) in the emulator (repeatable; built-in emulator only)',
    commands: [...TARGET, 'serve'],
  },
  host: { kind: 'string', arg: 'H', description: 'listen address', value: '127.0.0.1', commands: ['serve'] },
  port: {
    kind: 'number',
    arg: 'P',
    description: 'listen port; 0 picks a free one (environment i listens on P+i)',
    value: 8443,
    range: RANGES.port,
    commands: ['serve'],
  },
  environments: {
    kind: 'string',
    arg: 'LIST',
    description: 'one listener per environment, each with its own credentials (comma-separated)',
    value: 'sandbox',
    commands: ['serve'],
  },
  'token-ttl': {
    kind: 'number',
    arg: 'S',
    description: 'deprecated name of --token-lifetime',
    aliasOf: 'token-lifetime',
    range: RANGES.tokenLifetimeS,
    commands: ['serve'],
  },
  'rate-limit': {
    kind: 'number',
    arg: 'RPS',
    description: 'token bucket refill per client; 0 turns it off',
    value: 50,
    range: RANGES.emulatorRps,
    commands: ['serve'],
  },
  burst: {
    kind: 'number',
    arg: 'N',
    description: 'token bucket size per client',
    value: 50,
    range: RANGES.burst,
    commands: ['serve'],
  },
  limiter: {
    kind: 'list',
    arg: 'KIND[:KEY=V,…]',
    description:
      'the limiter per client: bucket, fixed (window), sliding (window: a log) counter (sliding-window counter, as go-chi/httprate) or queue (nginx limit_req without nodelay: up to --burst excess requests wait their turn); all admit --rate-limit in the long run. Several limits at once (repeatable, or joined by +), each with its own rate=, burst=, window=, limit=, counts-refused, fill-interval=: e.g. bucket:rate=10,burst=10+fixed:limit=600,window=60; a request passes when every limit admits it',
    default: 'bucket',
    commasInside: true,
    commands: ['serve'],
  },
  window: {
    kind: 'number',
    arg: 'S',
    description: 'fixed window length or sliding period (--limiter fixed|sliding|counter); the limit is rate × window',
    value: 1,
    range: RANGES.windowS,
    commands: ['serve'],
  },
  'counts-refused': {
    kind: 'boolean',
    description: 'refused requests count against the client too (--limiter fixed|sliding|counter)',
    commands: ['serve'],
  },
  'fill-interval': {
    kind: 'number',
    arg: 'S',
    description:
      "the bucket is refilled by a timer, rate × S tokens every S seconds, as Envoy's token_bucket fill_interval (--limiter bucket); unset: continuously",
    range: RANGES.fillIntervalS,
    commands: ['serve'],
  },
  'queue-delay': {
    kind: 'number',
    arg: 'N',
    description:
      "of the --burst excess requests, how many pass without waiting, as nginx's limit_req delay= (--limiter queue); unset: 0, all wait",
    range: RANGES.burst,
    commands: ['serve'],
  },
  clients: {
    kind: 'number',
    arg: 'N',
    description: 'clients per environment, each with its own credentials and limit',
    value: 1,
    range: RANGES.emulatorClients,
    commands: ['serve'],
  },
  'business-latency': {
    kind: 'number',
    arg: 'MS',
    description: 'milliseconds each business endpoint (/v1/…) waits before answering: a slower service',
    value: 0,
    range: RANGES.businessLatencyMs,
    commands: ['serve'],
  },
  'env-option': {
    kind: 'list',
    arg: 'ENV.KEY=V',
    description:
      'one environment differs from the others, e.g. production.token-ttl=3600 (repeatable; keys in docs/cutover.md)',
    commands: ['serve'],
  },
  'tls-dir': {
    kind: 'string',
    arg: 'DIR',
    description:
      'where the generated CA and server certificate go; a restart with the same folder serves them again while valid',
    default: 'a temp folder',
    commands: ['serve'],
  },
  'cutover-window': {
    kind: 'number',
    arg: 'DAYS',
    description: 'a production certificate that expires within this many days makes cutover NOT READY',
    value: 14,
    range: RANGES.cutoverWindowDays,
    commands: ['cutover'],
  },
  'sandbox-from-history': {
    kind: 'number',
    arg: 'H',
    description:
      "take sandbox's facts from its last check or run in the history when at most H hours old (no request to sandbox); a fresh sandbox pass otherwise",
    range: RANGES.sandboxHistoryAgeH,
    commands: ['cutover'],
  },
  json: { kind: 'boolean', description: 'one JSON array instead of a table', commands: ['checks'] },
  'no-color': {
    kind: 'boolean',
    description: 'plain terminal output (also NO_COLOR=1; FORCE_COLOR=1 colours even when not a terminal)',
    commands: [...TARGET, 'serve', 'k8s', 'client', 'cutover'],
  },
  help: { kind: 'boolean', short: 'h', description: 'show this help', commands: ALL },
  version: { kind: 'boolean', short: 'V', description: 'print the version', commands: ALL },
} as const satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;
type ValueOf<K extends Kind> = K extends 'string'
  ? string
  : K extends 'number'
    ? number
    : K extends 'boolean'
      ? boolean
      : string[];
export type Options = { [N in FlagName]?: ValueOf<(typeof FLAGS)[N]['kind']> };
type Defaulted = { [N in FlagName]: (typeof FLAGS)[N] extends { value: unknown } ? N : never }[FlagName];

/** A flag's value, or the default its table entry carries. */
export function flagValue<N extends Defaulted>(options: Options, name: N): ValueOf<(typeof FLAGS)[N]['kind']> {
  return (options[name] ?? FLAGS[name].value) as ValueOf<(typeof FLAGS)[N]['kind']>;
}

export interface Invocation {
  command: Command | 'help' | 'version';
  options: Options;
  /** `client` only: the user's command and its arguments, everything after `--`. */
  clientArgv?: string[];
}

export function parseCommandLine(argv: readonly string[]): Invocation {
  const [first, ...args] = argv;
  let rest = args;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help')
    return { command: 'help', options: {} };
  if (first === '--version' || first === '-V' || first === '-v' || first === 'version')
    return { command: 'version', options: {} };
  if (!(first in COMMANDS)) {
    throw usageError(`unknown command "${first}"; use one of ${Object.keys(COMMANDS).join(', ')} (ces-harness --help)`);
  }
  const command = first as Command;
  // `client -- node my-client.js --verbose`: what follows -- is the user's command, never our flags.
  const split = command === 'client' ? rest.indexOf('--') : -1;
  const clientArgv = split === -1 ? undefined : rest.slice(split + 1);
  if (split !== -1) rest = rest.slice(0, split);
  const allowed = Object.entries(FLAGS).filter(([, spec]) => (spec.commands as readonly Command[]).includes(command));
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: joinNegativeNumbers(rest),
      strict: true,
      allowPositionals: false,
      options: Object.fromEntries(
        allowed.map(([name, spec]) => [
          name,
          {
            type: spec.kind === 'boolean' ? 'boolean' : 'string',
            multiple: spec.kind === 'list',
            ...('short' in spec ? { short: spec.short } : {}),
          },
        ]),
      ),
    });
  } catch (err) {
    throw usageError(`${describeParseError(err, command)} (ces-harness ${command} --help)`);
  }
  const options: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    const spec = FLAGS[name as FlagName];
    if (spec.kind === 'number') options[name] = toNumber(name, value as string, (spec as FlagSpec).range);
    else if (spec.kind === 'list')
      options[name] = (value as string[])
        .flatMap((v) => ((spec as FlagSpec).commasInside ? [v] : v.split(',')))
        .map((v) => v.trim())
        .filter(Boolean);
    else options[name] = value;
  }
  for (const [name, spec] of allowed) {
    if (!('aliasOf' in spec) || options[name] === undefined) continue;
    if (options[spec.aliasOf] !== undefined)
      throw usageError(`--${name} is the old name of --${spec.aliasOf}: give only --${spec.aliasOf}`);
    options[spec.aliasOf] = options[name];
    delete options[name];
  }
  return { command, options: options as Options, ...(clientArgv ? { clientArgv } : {}) };
}

function toNumber(name: string, value: string, range: NumberRange | undefined): number {
  if (!range) throw new Error(`flag --${name} has no range in the flag table`);
  const parsed = parseInRange(value, range, `--${name}`);
  if (typeof parsed === 'string') throw usageError(parsed);
  return parsed;
}

const NUMBER_FLAGS = new Set(
  Object.entries(FLAGS)
    .filter(([, spec]) => spec.kind === 'number')
    .map(([name]) => `--${name}`),
);

/**
 * `--token-lifetime -5` as `--token-lifetime=-5`: parseArgs takes a value that starts with a dash
 * for a flag and says "needs a value", when what is wrong is the number; the range check says so.
 */
function joinNegativeNumbers(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (NUMBER_FLAGS.has(arg) && next !== undefined && /^-[\d.]/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

function describeParseError(err: unknown, command: Command): string {
  const message = err instanceof Error ? err.message : String(err);
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const flag = unknown[1]!.replace(/^-+/, '');
    const elsewhere = Object.entries(FLAGS).find(([name]) => name === flag);
    return elsewhere
      ? `--${flag} does not apply to \`ces-harness ${command}\``
      : `unknown flag ${unknown[1]} for \`ces-harness ${command}\``;
  }
  const missing = /Option '(--[^ ]+?)(?: <value>)?' argument (?:missing|is ambiguous)/.exec(message);
  if (missing) return `${missing[1]} needs a value`;
  if (/Unexpected argument/.test(message))
    return `unexpected argument: ${message.split("'")[1] ?? message}; flags take the form --name value`;
  return message.split('\n')[0] ?? message;
}

/** The values a list flag accepts, where they come from a catalogue (`--fault`'s names): shown under the flags. */
export type FlagChoices = Partial<Record<FlagName, readonly string[]>>;

export function helpText(command?: Command, choices: FlagChoices = {}): string {
  if (!command) {
    const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
    return [
      'ces-harness: conformance and load-test harness for the Credit Evaluation Service token interface',
      '',
      'Usage: ces-harness <command> [flags]',
      '',
      'Commands:',
      ...Object.entries(COMMANDS).map(([name, text]) => `  ${name.padEnd(width)}  ${text}`),
      '',
      'Credentials come from the environment (CES_CLIENT_ID, CES_CLIENT_SECRET, or the ${VAR}s the config names), never from flags.',
      'Exit codes: 0 conformant, 1 a must check or threshold failed, 2 usage/config error, 3 target unreachable or untrusted.',
      'ces-harness <command> --help (-h) lists its flags; ces-harness --version (-V) prints the version.',
    ].join('\n');
  }
  const rows = Object.entries(FLAGS)
    .filter(([, spec]) => (spec.commands as readonly Command[]).includes(command) && !('aliasOf' in spec))
    .map(([name, spec]) => {
      const left = `${'short' in spec ? `-${spec.short}, ` : ''}--${name}${'arg' in spec ? ` ${spec.arg}` : ''}`;
      const range = 'range' in spec ? `${spec.range.min}–${spec.range.max}` : undefined;
      const shown = 'default' in spec ? spec.default : 'value' in spec ? String(spec.value) : undefined;
      const notes = [range, shown !== undefined ? `default: ${shown}` : undefined].filter(Boolean);
      const right = `${spec.description}${notes.length ? ` (${notes.join('; ')})` : ''}`;
      return [left, right] as const;
    });
  const width = Math.max(...rows.map(([l]) => l.length));
  const usage =
    command === 'client' ? 'ces-harness client [flags] -- <command> [args...]' : `ces-harness ${command} [flags]`;
  const lists = Object.entries(choices)
    .filter(([name]) => (FLAGS[name as FlagName].commands as readonly Command[]).includes(command))
    .flatMap(([name, values]) => [
      '',
      `--${name} takes one of:`,
      ...wrapped(values ?? [], 98).map((line) => `  ${line}`),
    ]);
  return [
    `Usage: ${usage}`,
    '',
    COMMANDS[command],
    '',
    'Flags:',
    ...rows.map(([l, r]) => `  ${l.padEnd(width)}  ${r}`),
    ...lists,
  ].join('\n');
}

/** Comma-separated values in lines of at most `width` characters (a name longer than that stands alone). */
function wrapped(values: readonly string[], width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const [i, value] of values.entries()) {
    const item = i < values.length - 1 ? `${value},` : value;
    if (line && line.length + 1 + item.length > width) {
      lines.push(line);
      line = item;
    } else line = line ? `${line} ${item}` : item;
  }
  if (line) lines.push(line);
  return lines;
}

/** The number flags and their ranges, for the table in docs/configuration.md. */
export const flagRanges = (): Array<{ flag: string; range: NumberRange }> =>
  Object.entries(FLAGS).flatMap(([name, spec]) =>
    'range' in spec && !('aliasOf' in spec) ? [{ flag: `--${name}`, range: spec.range }] : [],
  );
