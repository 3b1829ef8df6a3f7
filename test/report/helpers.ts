// Shared by the renderer tests: the committed fixture reports and ways to poison them.

import { readFileSync } from 'node:fs';
import type { Report } from '../../src/report/model.js';

export type FixtureName = 'pass' | 'fail';
export const FIXTURES: readonly FixtureName[] = ['pass', 'fail'];

export function loadFixture(name: FixtureName): Report {
  return JSON.parse(readFileSync(new URL(`../fixtures/report-${name}.json`, import.meta.url), 'utf8')) as Report;
}

/** A deep copy with `f` applied to every string (keys stay as they are). */
export function mapStrings<T>(value: T, f: (s: string) => string): T {
  if (typeof value === 'string') return f(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => mapStrings(v, f)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)])) as T;
  }
  return value;
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * The same report with the keys of every model object in reverse order. A scenario's `extra` is
 * free-form, so its order is the producer's to choose and stays as it is.
 */
export function reverseKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => reverseKeys(v)) as T;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).reverse();
    return Object.fromEntries(entries.map(([k, v]) => [k, k === 'extra' ? v : reverseKeys(v)])) as T;
  }
  return value;
}

export const XSS = '<img src=x onerror=alert(1)>';
