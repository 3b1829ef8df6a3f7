// The YAML config's one validation boundary. Objects are strict, so a misspelt key is an error
// that names its path instead of a setting silently ignored.

import { z } from 'zod';
import { HTTP_METHODS, RATE_LIMIT_ENDPOINTS } from '../spec/endpoints.js';
import { RANGES, inRange, rangeText, type NumberRange } from './ranges.js';

/** A number within its declared range; the message names the range and what was given. */
const ranged = (r: NumberRange) =>
  z
    .number()
    .refine((n) => inRange(r, n), { error: (issue) => `must be ${rangeText(r)}, got ${String(issue.input)}` })
    // Read back by configRanges, for the table of ranges in docs/configuration.md.
    .meta({ range: r });

const environment = z
  .object({
    base_url: z.string().url(),
    client_id: z.string().min(1),
    client_secret: z.string().min(1),
    ca_file: z.string().min(1).optional(),
    /** This environment is production whatever its name (one named `production` always is). */
    production: z.boolean().optional(),
  })
  .strict();

/**
 * The opt-in for calling this endpoint with a valid token on production, with a payload of its
 * own: the sandbox's payload may be a real credit evaluation or ACH transaction there.
 */
const productionCall = z
  .object({
    allow: z.literal(true, {
      error: 'must be true (leave production: out to keep the endpoint untouched on production)',
    }),
    method: z.enum(HTTP_METHODS).default('POST'),
    body: z.unknown().refine((b) => b !== undefined, {
      error: 'give the payload production may receive (body: {...}); the sandbox one is never sent there',
    }),
  })
  .strict();

const businessCall = z
  .object({
    method: z.enum(HTTP_METHODS).default('POST'),
    body: z.unknown().default({}),
    production: productionCall.optional(),
  })
  .strict();

const threshold = z.array(z.string().min(1));

export const configSchema = z
  .object({
    target: z.string().min(1).optional(),
    /** Opt-in: a client_secret written in the file itself is meant (a throwaway test secret), so no warning. */
    allow_literal_secrets: z.boolean().optional(),
    environments: z.record(z.string().min(1), environment).optional(),
    expect: z
      .object({
        token_lifetime_s: ranged(RANGES.tokenLifetimeS).optional(),
        expiry_wait_s: ranged(RANGES.expiryWaitS).optional(),
        clock_tolerance_s: ranged(RANGES.clockToleranceS).optional(),
      })
      .strict()
      .optional(),
    business: z
      .object({
        evaluation: businessCall.optional(),
        ach_transactions: businessCall.optional(),
      })
      .strict()
      .optional(),
    rate_limit: z
      .object({
        endpoint: z.enum(RATE_LIMIT_ENDPOINTS).optional(),
        max_rps: ranged(RANGES.maxRps).optional(),
        max_requests: ranged(RANGES.maxRequests).optional(),
        max_retry_after_s: ranged(RANGES.maxRetryAfterS).optional(),
        /** How long one request of the checks may wait on the rate limit's Retry-Afters once its turn comes (`--limit-wait S`). */
        limit_wait_s: ranged(RANGES.limitWaitS).optional(),
        /** How long a client's life the rate-limit proof covers, seconds (`--horizon S`). */
        horizon_s: ranged(RANGES.horizonS).optional(),
        /** Size the policy for this many client instances sharing the limit (`--fleet N`). */
        fleet: ranged(RANGES.fleet).optional(),
        /**
         * A second client of the same environment (credentials through ${VAR}, like the target's):
         * the probe drains the target's limit, then lets this one send, telling a per-client limit
         * from a shared (per address, global) one.
         */
        second_client: z
          .object({ client_id: z.string().min(1), client_secret: z.string().min(1) })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    /** Production's request budget: a run never sends more requests than this to a production environment. */
    production: z
      .object({ max_requests: ranged(RANGES.productionMaxRequests).optional() })
      .strict()
      .optional(),
    /** How long one request may take to answer in full (connect included), seconds. */
    request_timeout_s: ranged(RANGES.requestTimeoutS).optional(),
    /** Where the token ledger lives (a 0600 file); tokens captured by earlier runs prove expiry. */
    ledger: z.string().min(1).optional(),
    /** Where the run history lives (JSON Lines, 0600); `off` keeps none. */
    history: z.string().min(1).optional(),
    /** What a regression since the stored runs does (warn or fail, per kind), and how many runs judge the noise. */
    regressions: z
      .object({
        check: z.enum(['warn', 'fail']).optional(),
        fact: z.enum(['warn', 'fail']).optional(),
        latency: z.enum(['warn', 'fail']).optional(),
        rate_limit: z.enum(['warn', 'fail']).optional(),
        runs: z.number().int().min(3).max(500).optional(),
      })
      .strict()
      .optional(),
    load: z
      .object({
        /** k6 threshold expressions per metric, e.g. http_req_duration: ["p(95)<500"]. */
        thresholds: z.record(z.string().min(1), threshold).optional(),
        /** Requests per second of the throughput scenario, and how long each scenario runs. */
        rate: ranged(RANGES.loadRate).optional(),
        /** Arrival rate of the rate-limit scenario: above the service's limit, to provoke 429s. */
        over_limit_rate: ranged(RANGES.loadRate).optional(),
        duration_s: ranged(RANGES.durationS).optional(),
        vus: ranged(RANGES.vus).optional(),
        /** k6 outputs passed through as --out (json=…, experimental-prometheus-rw, influxdb=…). */
        outputs: z.array(z.string().min(1)).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

export type ConfigFile = z.infer<typeof configSchema>;

/** Every ranged number of the config, by key path (`expect.token_lifetime_s`), in schema order. */
export function configRanges(): Array<{ key: string; range: NumberRange }> {
  const out: Array<{ key: string; range: NumberRange }> = [];
  const walk = (type: z.ZodType, path: string[]): void => {
    if (type instanceof z.ZodOptional) return walk(type.unwrap() as z.ZodType, path);
    if (type instanceof z.ZodObject) {
      for (const [key, inner] of Object.entries(type.shape)) walk(inner as z.ZodType, [...path, key]);
      return;
    }
    const range = (type.meta() as { range?: NumberRange } | undefined)?.range;
    if (range) out.push({ key: path.join('.'), range });
  };
  walk(configSchema, []);
  return out;
}
