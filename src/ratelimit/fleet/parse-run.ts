// A FleetRun from JSON someone else wrote (the k6 fleet scenario reads it from CES_FLEET_JSON):
// every field checked, and what is wrong said in one line naming the field. No Node or k6 imports.

import { FLEET_POLICY_NAMES, type FleetPolicy, type FleetPolicyName } from './policy.js';
import type { FleetRun } from './run-setup.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function number(o: Json, key: string, where: string, min: number, integer = false): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || (integer && !Number.isInteger(v))) {
    throw new Error(
      `${where}.${key} must be ${integer ? 'a whole number' : 'a number'} ≥ ${min}, got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

function optionalNumber(o: Json, key: string, where: string, min: number): { [k: string]: number } {
  return o[key] === undefined ? {} : { [key]: number(o, key, where, min) };
}

function policy(v: unknown, where: string): FleetPolicy {
  if (!isObject(v)) throw new Error(`${where} must be an object`);
  if (!(FLEET_POLICY_NAMES as readonly unknown[]).includes(v.name))
    throw new Error(`${where}.name must be one of ${FLEET_POLICY_NAMES.join(', ')}, got ${JSON.stringify(v.name)}`);
  if (typeof v.honour_retry_after !== 'boolean') throw new Error(`${where}.honour_retry_after must be true or false`);
  return {
    name: v.name as FleetPolicyName,
    base_ms: number(v, 'base_ms', where, 0),
    cap_ms: number(v, 'cap_ms', where, 0),
    max_retries: number(v, 'max_retries', where, 0, true),
    honour_retry_after: v.honour_retry_after,
    ...optionalNumber(v, 'rate_rps', where, 0),
    ...optionalNumber(v, 'burst', where, 1),
    ...optionalNumber(v, 'k', where, 1),
    ...optionalNumber(v, 'window_s', where, 1),
  };
}

export function parseFleetRun(v: unknown, where: string): FleetRun {
  if (!isObject(v))
    throw new Error(`${where} must be a JSON object {instances, policy, offered_rps, backlog, duration_s, seed}`);
  return {
    instances: number(v, 'instances', where, 1, true),
    policy: policy(v.policy, `${where}.policy`),
    offered_rps: number(v, 'offered_rps', where, 0),
    backlog: number(v, 'backlog', where, 0, true),
    duration_s: number(v, 'duration_s', where, 0.1),
    seed: number(v, 'seed', where, 0, true),
    ...optionalNumber(v, 'start_margin_ms', where, 0),
  };
}
