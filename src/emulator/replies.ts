// Building Replies. The spec's error bodies (§7) are JSON objects with a string `error`; the
// emulator uses the same shape for the errors the spec leaves open (400, 404, 405, 413).

import type { Reply, UnauthorizedKind } from './types.js';

export const JSON_TYPE = 'application/json';
export const TEXT_TYPE = 'text/plain; charset=utf-8';

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': JSON_TYPE, ...headers }, body: JSON.stringify(value) };
}

export function text(status: number, body: string, headers: Record<string, string> = {}): Reply {
  return { status, headers: { 'content-type': TEXT_TYPE, ...headers }, body };
}

export const errorReply = (status: number, error: string, headers: Record<string, string> = {}): Reply =>
  json(status, { error }, headers);

/** RFC 6750 §3: a challenge on every 401; an error code only when a bearer token was presented. */
export function wwwAuthenticate(kind: UnauthorizedKind): string {
  return kind === 'invalid' ? 'Bearer realm="ces", error="invalid_token"' : 'Bearer realm="ces"';
}

export const invalidRequest = (): Reply => errorReply(400, 'invalid_request');
export const notFound = (): Reply => errorReply(404, 'not_found');
export const methodNotAllowed = (allow: readonly string[]): Reply =>
  errorReply(405, 'method_not_allowed', { allow: allow.join(', ') });
/** The rest of an oversized body is never read, so the connection cannot be reused. */
export const payloadTooLarge = (): Reply => errorReply(413, 'payload_too_large', { connection: 'close' });
export const internalError = (): Reply => errorReply(500, 'internal_error');

/** §4.1: the token answer must not be cached by anything on the way (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/**
 * The Date header (RFC 9110 §6.6.1) on the emulator's own clock, as a real service stamps its
 * answers with its host's clock: left to Node it would be the machine's, whatever the service's.
 */
export const withDate = (reply: Reply, nowMs: number): Reply =>
  'date' in reply.headers ? reply : { ...reply, headers: { date: new Date(nowMs).toUTCString(), ...reply.headers } };
