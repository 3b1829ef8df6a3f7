// Test side of the wire: an emulator on port 0 with a clock the test moves, and a small undici
// client that trusts its CA. Every request has a timeout, so a hung emulator fails a test
// instead of stalling the run.

import { Agent, request } from 'undici';
import { createEmulator, type Emulator, type EmulatorOptions } from '../../../src/emulator/index.js';

/** A fixed start instant (a quarter past a whole second, to exercise the rounding of expires_at). */
export const T0 = Date.UTC(2026, 10, 22, 10, 0, 0) + 250;

export interface Clock {
  now: () => number;
  advance(ms: number): void;
  set(ms: number): void;
}

export function testClock(start = T0): Clock {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    set: (ms) => {
      t = ms;
    },
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** Parsed body, or undefined when it is not JSON. */
  json: unknown;
}

export interface CallOptions {
  json?: unknown;
  body?: string;
  bearer?: string;
  headers?: Record<string, string>;
}

export interface Running {
  emu: Emulator;
  clock: Clock;
  ttlS: number;
  call(method: string, path: string, options?: CallOptions, env?: number): Promise<Answer>;
  /** POST /tokens with environment `env`'s own credentials (or the ones given). */
  issue(env?: number, credentials?: { clientId: string; clientSecret: string }): Promise<Answer>;
  close(): Promise<void>;
}

const TIMEOUT_MS = 5_000;

export async function start(options: EmulatorOptions = {}): Promise<Running> {
  const clock = testClock();
  const ttlS = options.tokenTtlS ?? 60;
  const emu = await createEmulator({ port: 0, now: clock.now, ...options, tokenTtlS: ttlS });
  const agent = new Agent({
    connect: { ca: emu.caPem, timeout: TIMEOUT_MS },
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
  });

  const call = async (method: string, path: string, o: CallOptions = {}, env = 0): Promise<Answer> => {
    const base = emu.environments[env]?.url;
    if (base === undefined) throw new Error(`no environment ${env}`);
    const headers: Record<string, string> = { ...o.headers };
    let body = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['content-type'] = 'application/json';
    }
    if (o.bearer !== undefined) headers.authorization = `Bearer ${o.bearer}`;
    const res = await request(base + path, { method: method as 'GET', headers, body, dispatcher: agent });
    const text = await res.body.text();
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, headers: flat, text, json };
  };

  const issue = (env = 0, credentials = emu.environments[env]?.credentials) =>
    call(
      'POST',
      '/tokens',
      { json: { token: { client_id: credentials?.clientId, client_secret: credentials?.clientSecret } } },
      env,
    );

  return {
    emu,
    clock,
    ttlS,
    call,
    issue,
    close: async () => {
      await agent.close();
      await emu.close();
    },
  };
}

/** The token of a 200 token answer; throws with the answer when there is none. */
export function tokenOf(answer: Answer): { token: string; expiresAt: number } {
  const body = answer.json as { token?: unknown; expires_at?: unknown } | undefined;
  if (answer.status !== 200 || typeof body?.token !== 'string' || typeof body.expires_at !== 'number') {
    throw new Error(`expected a token, got ${answer.status} ${answer.text}`);
  }
  return { token: body.token, expiresAt: body.expires_at };
}
