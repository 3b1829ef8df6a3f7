// The profile catalog: one typed list, from which --profile values and ProfileName come. Each
// entry is a file of its own. Profiles apply before faults, so a fault still breaks a service that
// also has a profile (a JWT service that rotates its tokens is still caught).

import type { Behaviour } from '../types.js';
import { DEFAULT_TRANSPORT, type Transport } from '../transport.js';
import { profile as businessRejectsPayload } from './business-rejects-payload.js';
import { profile as compression } from './compression.js';
import { profile as connectionClose } from './connection-close.js';
import { profile as expiresAtRounded } from './expires-at-rounded.js';
import { profile as extraFields } from './extra-fields.js';
import { profile as jwt } from './jwt.js';
import { healthClf, healthHttpDate, healthIso8601 } from './health-date-formats.js';
import { profile as http2 } from './http2.js';
import { profile as idleClose } from './idle-close.js';
import { profile as intermediateCa } from './intermediate-ca.js';
import { profile as latency } from './latency.js';
import { profile as oauthErrorFields } from './oauth-error-fields.js';
import { profile as clockSkew } from './clock-skew.js';
import { profile as clockSkewBehind } from './clock-skew-behind.js';

import { kongProfile as ratelimitHeadersKong, profile as ratelimitHeaders } from './ratelimit-headers.js';
import { profile as silentClose } from './silent-close.js';
import { profile as singleWorker } from './single-worker.js';
import { profile as slowBusiness } from './slow-business.js';
import { profile as slowTokenIssue } from './slow-token-issue.js';

export type { Profile } from './types.js';

export const PROFILES = [
  extraFields,
  jwt,
  healthIso8601,
  healthHttpDate,
  healthClf,
  http2,
  compression,
  oauthErrorFields,
  idleClose,
  silentClose,
  connectionClose,
  intermediateCa,
  latency,
  singleWorker,
  businessRejectsPayload,
  slowBusiness,
  slowTokenIssue,
  clockSkew,
  clockSkewBehind,
  expiresAtRounded,
  ratelimitHeaders,
  ratelimitHeadersKong,
] as const;

export type ProfileName = (typeof PROFILES)[number]['name'];

const BY_NAME: ReadonlyMap<string, (typeof PROFILES)[number]> = new Map(PROFILES.map((p) => [p.name, p]));

export const isProfileName = (s: string): s is ProfileName => BY_NAME.has(s);

const chosen = (names: readonly ProfileName[]) => [...new Set(names)].flatMap((n) => BY_NAME.get(n) ?? []);

/** The behaviour with the named profiles folded over it, in the order given. */
export function withProfiles(base: Behaviour, names: readonly ProfileName[]): Behaviour {
  return chosen(names).reduce((b, p) => (p.override ? { ...b, ...p.override(b) } : b), base);
}

/** The transport the named profiles ask for, later ones winning. */
export function transportOf(names: readonly ProfileName[]): Transport {
  return chosen(names).reduce<Transport>((t, p) => ({ ...t, ...p.transport }), DEFAULT_TRANSPORT);
}

/** How far the service's clock is off, ms: the named profiles' offsets added up. */
export function clockOffsetOf(names: readonly ProfileName[]): number {
  return chosen(names).reduce((sum, p) => sum + (p.clockOffsetMs ?? 0), 0);
}
