// What a service says of its own rate limit in answer headers, in the spellings found in the wild.
// §8 publishes no threshold, but many gateways announce one: the IETF fields of
// draft-ietf-httpapi-ratelimit-headers (the structured `RateLimit-Policy: "default";q=120;w=60` with
// `RateLimit: "default";r=50;t=30` from draft 07 on; `RateLimit-Policy: 120;w=60` and the
// `RateLimit: limit=…, remaining=…, reset=…` dictionary of earlier drafts; the first drafts'
// `RateLimit-Limit/-Remaining/-Reset` trio, Envoy's `10, 10;w=60` limit), `X-RateLimit-*` (GitHub,
// Envoy, express-rate-limit's legacy headers), Twitter's `x-rate-limit-*` and Kong's per-unit
// `X-RateLimit-Limit-Minute`. An announcement is a claim to verify, never a measurement: this only
// reads it. Anything garbled is ignored, never thrown: a header is the service's, not ours to trust.

/** One announcement, folded from whichever fields an answer carried. */
export interface Advertisement {
  /** Requests the quota allows per window. */
  limit: number;
  /** The window, seconds, when a field says it (RateLimit-Policy's w=, Kong's unit); null otherwise. */
  windowS: number | null;
  /** Requests left in the current window, when said. */
  remaining: number | null;
  /** Seconds from the answer until the quota resets, when said: how long a client waits, never below 0. */
  resetS: number | null;
  /**
   * The same field unclamped: negative once an epoch reset is past (a window's end truncated to its
   * second, as go-chi/httprate announces it, is past for the rest of that second, yet still names
   * the window its answer was counted in).
   */
  resetAheadS: number | null;
  /** The header the limit was read from, as the report names it. */
  source: string;
}

/** What a limit announced is kept under, the same limit and window from whichever field said them. */
export const announcedKey = (ad: Pick<Advertisement, 'limit' | 'windowS'>): string => `${ad.limit}/${ad.windowS}`;

/** Header names are compared lower-case (undici and Node hand them so). */
type Headers = Readonly<Record<string, string | undefined>>;

const INTEGER = /^\d{1,12}$/;
const NUMBER = /^\d{1,13}(\.\d{1,6})?$/;

const integer = (s: string | undefined): number | null =>
  s !== undefined && INTEGER.test(s.trim()) ? Number(s.trim()) : null;

// Epoch seconds are past 1e9 (2001) and epoch ms past 1e12; a delay that long is not one. GitHub
// and Discord send epoch seconds, Envoy, Kong and express-rate-limit seconds from now.
const EPOCH_S = 1e9;
const EPOCH_MS = 1e12;

/**
 * A reset field's value, seconds from `nowMs`: delta seconds, or epoch seconds or ms told apart by
 * magnitude; negative when an epoch reset is already past (a window's end truncated to its second,
 * as go-chi/httprate announces it, is past for the rest of that second).
 */
export function resetAheadS(value: string | undefined, nowMs: number): number | null {
  const v = value?.trim();
  if (v === undefined || !NUMBER.test(v)) return null;
  const n = Number(v);
  if (n >= EPOCH_MS) return (n - nowMs) / 1000;
  if (n >= EPOCH_S) return n - nowMs / 1000;
  return n;
}

/** A reset field's value, seconds from `nowMs`, never below 0: how long a client waits. */
export function resetFromNow(value: string | undefined, nowMs: number): number | null {
  const ahead = resetAheadS(value, nowMs);
  return ahead === null ? null : Math.max(0, ahead);
}

/** An Advertisement's two readings of one reset field: the wait, and the value unclamped. */
const resetOf = (value: string | undefined, nowMs: number): Pick<Advertisement, 'resetS' | 'resetAheadS'> => ({
  resetS: resetFromNow(value, nowMs),
  resetAheadS: resetAheadS(value, nowMs),
});

/** One member of a structured-field list: its bare item (a token, string or number) and its parameters. */
interface Member {
  item: string;
  params: Map<string, string>;
}

/**
 * An RFC 8941 list, read leniently: members split on commas, parameters on semicolons, quotes
 * dropped. Good enough for the few numbers wanted here; a member that does not parse is skipped.
 */
function members(value: string | undefined): Member[] {
  if (value === undefined || value.length > 1000) return [];
  const out: Member[] = [];
  for (const raw of value.split(',')) {
    const [head, ...rest] = raw.split(';').map((p) => p.trim());
    if (head === undefined) continue;
    const params = new Map<string, string>();
    for (const p of rest) {
      const eq = p.indexOf('=');
      if (eq > 0)
        params.set(
          p.slice(0, eq).trim().toLowerCase(),
          p
            .slice(eq + 1)
            .trim()
            .replace(/^"(.*)"$/, '$1'),
        );
    }
    // `limit=100` in the early drafts' dictionary: the key is the item, its value a parameter of its own.
    const eq = head.indexOf('=');
    if (eq > 0) params.set(head.slice(0, eq).trim().toLowerCase(), head.slice(eq + 1).trim());
    out.push({ item: (eq > 0 ? '' : head).replace(/^"(.*)"$/, '$1'), params });
  }
  return out;
}

/** A quota policy: `"name";q=120;w=60` (draft 07 on), or `120;w=60` (earlier drafts, Envoy's limit field). */
interface Policy {
  name: string | null;
  limit: number;
  windowS: number | null;
}

function policies(value: string | undefined): Policy[] {
  const out: Policy[] = [];
  for (const m of members(value)) {
    const q = integer(m.params.get('q'));
    const bare = integer(m.item);
    const limit = q ?? bare;
    if (limit === null || limit < 1) continue;
    const w = integer(m.params.get('w'));
    out.push({ name: q !== null ? m.item || null : null, limit, windowS: w !== null && w > 0 ? w : null });
  }
  return out;
}

/**
 * Which of several announced policies binds: for a client sending steadily, the one with the lowest
 * rate (q / w: `"second";q=30;w=1, "minute";q=600;w=60` paces it at 10 req/s, by the minute); for a
 * burst from idle, the one with the smallest quota (the 30 of the second, met first).
 */
export type Binding = 'rate' | 'burst';

/** The binding one of several; a policy without a window only when none has one (a rate needs one). */
function binding<P extends Pick<Policy, 'limit' | 'windowS'>>(all: readonly P[], by: Binding): P | undefined {
  const windowed = all.filter((p) => p.windowS !== null);
  const pool = windowed.length > 0 ? windowed : all;
  const key = (p: P) => (by === 'rate' && p.windowS !== null ? p.limit / p.windowS : p.limit);
  return [...pool].sort((a, b) => key(a) - key(b))[0];
}

/** The newer structured fields, one announcement per policy of RateLimit-Policy, with RateLimit's r= and t= for it. */
function structured(h: Headers, nowMs: number): Advertisement[] {
  const all = policies(h['ratelimit-policy']);
  const state = members(h['ratelimit']);
  // Draft 03–06's dictionary: `limit=100, remaining=50, reset=30` as three members.
  const dict = new Map<string, string>();
  for (const m of state) for (const [k, v] of m.params) if (!dict.has(k)) dict.set(k, v);
  const stateOf = (policy: Policy | undefined) => {
    const named = state.find(
      (m) =>
        m.item !== '' &&
        (policy?.name === null || policy?.name === undefined || m.item === policy.name) &&
        (m.params.has('r') || m.params.has('t')),
    );
    return {
      remaining: integer(named?.params.get('r')) ?? integer(dict.get('remaining')),
      ...resetOf(named?.params.get('t') ?? dict.get('reset'), nowMs),
    };
  };
  if (all.length > 0)
    return all.map((p) => ({ limit: p.limit, windowS: p.windowS, ...stateOf(p), source: 'RateLimit-Policy' }));
  const limit = integer(dict.get('limit'));
  return limit === null || limit < 1 ? [] : [{ limit, windowS: null, ...stateOf(undefined), source: 'RateLimit' }];
}

/**
 * The -Limit/-Remaining/-Reset trio under a prefix (`ratelimit`, `x-ratelimit`, `x-rate-limit`): one
 * announcement per policy of the limit field (Envoy, draft 03: `10, 10;w=60`, the quota then the
 * policies it comes from), or, without one, one per Kong unit (X-RateLimit-Limit-Minute: 60).
 */
function trio(h: Headers, prefix: string, display: string, nowMs: number): Advertisement[] {
  const limitField = h[`${prefix}-limit`];
  const reset = resetOf(h[`${prefix}-reset`], nowMs);
  if (limitField !== undefined)
    return policies(limitField).map((p) => ({
      limit: p.limit,
      windowS: p.windowS,
      remaining: integer(h[`${prefix}-remaining`]),
      ...reset,
      source: `${display}-Limit`,
    }));
  return KONG_UNITS.flatMap(([unit, seconds]) => {
    const limit = integer(h[`${prefix}-limit-${unit}`]);
    if (limit === null || limit < 1) return [];
    return [
      {
        limit,
        windowS: seconds,
        remaining: integer(h[`${prefix}-remaining-${unit}`]),
        ...reset,
        source: `${display}-Limit-${capitalized(unit)}`,
      },
    ];
  });
}

/**
 * No header an announcement is read from: each is named `ratelimit…`, `x-ratelimit-…` or
 * `x-rate-limit-…`. Most answers carry none, and the probe reads every answer: this spares it the
 * 22 field lookups of the sources below (a third of a virtual probe's CPU).
 */
function announcesNothing(h: Headers): boolean {
  for (const name in h) if (name.includes('ratelimit') || name.includes('rate-limit')) return false;
  return true;
}

/**
 * Each answer's fields read once for the instant they are read at: the probe reads an answer's every
 * announcement and the one that binds a burst, and its client the one that binds a rate, five
 * parses of the same fields (a fifth of a virtual probe's CPU against a service that announces).
 */
const read = new WeakMap<Headers, { nowMs: number; sources: readonly (readonly Advertisement[])[] }>();

function SOURCES(h: Headers, nowMs: number): readonly (readonly Advertisement[])[] {
  const kept = read.get(h);
  if (kept?.nowMs === nowMs) return kept.sources;
  const sources = [
    structured(h, nowMs),
    trio(h, 'ratelimit', 'RateLimit', nowMs),
    trio(h, 'x-ratelimit', 'X-RateLimit', nowMs),
    trio(h, 'x-rate-limit', 'X-Rate-Limit', nowMs),
  ].map((ads) => Object.freeze(ads.map((ad) => Object.freeze(ad))));
  read.set(h, { nowMs, sources });
  return sources;
}

/**
 * Every limit an answer announces, each a hypothesis of its own: every policy of a RateLimit-Policy
 * list, every Kong unit, every policy of an Envoy limit field. The same limit said by two fields
 * once (the first field's reading); a limit said without a window dropped when a field gives the
 * same limit a window (Kong's RateLimit-Limit beside its X-RateLimit-Limit-Second).
 */
export function readAdvertisements(headers: Headers, nowMs: number): Advertisement[] {
  if (announcesNothing(headers)) return [];
  const out: Advertisement[] = [];
  const all = SOURCES(headers, nowMs).flat();
  for (const ad of all) {
    const windowedTwin = ad.windowS === null && all.some((o) => o.windowS !== null && o.limit === ad.limit);
    if (!windowedTwin && !out.some((o) => o.limit === ad.limit && o.windowS === ad.windowS)) out.push(ad);
  }
  return out;
}

/**
 * The announcement an answer carries that binds `by` (a steady client: the lowest rate, the default;
 * a burst: the smallest quota), or undefined when it carries none that reads. For a burst the IETF
 * fields win over the X- ones when both are present (they are the standard's), and a window said by
 * one field and not another is taken where it is said; for a rate, every limit announced is weighed.
 */
export function readAdvertisement(headers: Headers, nowMs: number, by: Binding = 'rate'): Advertisement | undefined {
  if (announcesNothing(headers)) return undefined;
  // Several limits with windows: the lowest rate of them all, whichever field said it.
  const windowed = readAdvertisements(headers, nowMs).filter((a) => a.windowS !== null);
  if (by === 'rate' && windowed.length > 1) return binding(windowed, 'rate');
  const found = SOURCES(headers, nowMs)
    .map((ads) => binding(ads, by))
    .filter((a): a is Advertisement => a !== undefined);
  const first = found[0];
  if (first === undefined) return undefined;
  const sameLimit = found.filter((a) => a.limit === first.limit);
  // A window another field says of that limit alone (Kong's RateLimit-Limit, the quota nearest its
  // end, beside its per-unit fields: the minute's once it has fewer left than the second holds).
  const windowedTwin = windowed.filter((a) => a.limit === first.limit);
  return {
    ...first,
    windowS:
      first.windowS ??
      sameLimit.find((a) => a.windowS !== null)?.windowS ??
      (windowedTwin.length === 1 ? windowedTwin[0]!.windowS : null),
    remaining: first.remaining ?? sameLimit.find((a) => a.remaining !== null)?.remaining ?? null,
    // Both readings of the reset from the one field that said it.
    ...resetsOf(first.resetS !== null ? first : (sameLimit.find((a) => a.resetS !== null) ?? first)),
  };
}

const resetsOf = ({ resetS, resetAheadS }: Advertisement): Pick<Advertisement, 'resetS' | 'resetAheadS'> => ({
  resetS,
  resetAheadS,
});

/** The rate an announcement allows in the long run, requests per second; null when it names no window. */
export const advertisedRps = (ad: Pick<Advertisement, 'limit' | 'windowS'>): number | null =>
  ad.windowS !== null && ad.windowS > 0 ? ad.limit / ad.windowS : null;

/**
 * Of two announcements, the one a client meets first: the lower rate; one with a window over one
 * without (a rate is what a client is paced by), the first seen when neither can be told apart.
 */
export function tighterAdvertisement(a: Advertisement | undefined, b: Advertisement): Advertisement {
  if (a === undefined) return b;
  const [ra, rb] = [advertisedRps(a), advertisedRps(b)];
  if (rb === null) return a;
  return ra === null || rb < ra ? b : a;
}

/** What a quota's current state is, for a service that announces it (the emulator's profile). */
export interface QuotaState {
  limit: number;
  windowS: number;
  remaining: number;
  /** Seconds until the quota is whole again (rounded up: a client waiting that long is never early). */
  resetS: number;
}

/** The fields a gateway announcing `q` adds to an answer: the IETF pair and the X-RateLimit trio. */
export function advertisementHeaders(q: QuotaState): Record<string, string> {
  const reset = String(Math.max(0, Math.ceil(q.resetS)));
  const remaining = String(Math.max(0, q.remaining));
  return {
    'ratelimit-policy': `"default";q=${q.limit};w=${q.windowS}`,
    ratelimit: `"default";r=${remaining};t=${reset}`,
    'x-ratelimit-limit': String(q.limit),
    'x-ratelimit-remaining': remaining,
    'x-ratelimit-reset': reset,
  };
}

/** Kong's units (X-RateLimit-Limit-Minute): the window each names, seconds (a month of 30 days, a year of 365, as Kong counts). */
export const KONG_UNITS: ReadonlyArray<readonly [string, number]> = [
  ['second', 1],
  ['minute', 60],
  ['hour', 3600],
  ['day', 86_400],
  ['month', 2_592_000],
  ['year', 31_536_000],
];

const capitalized = (word: string) => `${word[0]!.toUpperCase()}${word.slice(1)}`;

/** A policy's name in a list: its unit when it has one (`"minute"`), else its window (`"w10"`). */
const policyName = (q: QuotaState) => KONG_UNITS.find(([, s]) => s === q.windowS)?.[0] ?? `w${q.windowS}`;

/**
 * The fields a gateway announcing several quotas at once adds (draft-ietf-httpapi-ratelimit-headers
 * lists every policy: `RateLimit-Policy: "second";q=10;w=1, "minute";q=600;w=60`, with each one's
 * r= and t= in RateLimit); the X-RateLimit trio, which holds one, names `nearest`. One quota: exactly
 * advertisementHeaders.
 */
export function advertisementListHeaders(all: readonly QuotaState[], nearest: QuotaState): Record<string, string> {
  if (all.length <= 1) return advertisementHeaders(nearest);
  const reset = (q: QuotaState) => Math.max(0, Math.ceil(q.resetS));
  return {
    ...advertisementHeaders(nearest),
    'ratelimit-policy': all.map((q) => `"${policyName(q)}";q=${q.limit};w=${q.windowS}`).join(', '),
    ratelimit: all.map((q) => `"${policyName(q)}";r=${Math.max(0, q.remaining)};t=${reset(q)}`).join(', '),
  };
}

/**
 * Kong's rate-limiting plugin's fields: per unit, X-RateLimit-Limit-<Unit> and
 * X-RateLimit-Remaining-<Unit>, and RateLimit-Limit/-Remaining/-Reset for the quota nearest to
 * refusing. A window that is not one of Kong's units cannot be said in its fields and is left out.
 */
export function kongHeaders(all: readonly QuotaState[], nearest: QuotaState): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-limit': String(nearest.limit),
    'ratelimit-remaining': String(Math.max(0, nearest.remaining)),
    'ratelimit-reset': String(Math.max(0, Math.ceil(nearest.resetS))),
  };
  for (const q of all) {
    const unit = KONG_UNITS.find(([, s]) => s === q.windowS)?.[0];
    if (unit === undefined) continue;
    headers[`x-ratelimit-limit-${unit}`] = String(q.limit);
    headers[`x-ratelimit-remaining-${unit}`] = String(Math.max(0, q.remaining));
  }
  return headers;
}
