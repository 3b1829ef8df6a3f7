// src/http/undici.ts loads undici's parts from their own files to spare the CLI's start the rest of
// undici. They must send without undici's index ever loading, and each must be the very object the
// index exports, or an undici upgrade that moves or changes a file would show only as a run that
// cannot send.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import * as parts from '../../src/http/undici.js';

describe('the undici parts the harness loads', () => {
  // In a process of its own: the fast tier's worker runs other files, which load the index.
  it('send a request with undici’s index never loaded', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['scripts/run-ts.mjs', 'test/http/send-without-index.ts'],
      { timeout: 30_000 },
    );
    expect(JSON.parse(stdout)).toEqual({ answer: [200, 'POST /tokens/validate?x=1'], indexLoaded: false });
  });

  it.each(['Agent', 'Client', 'Pool', 'buildConnector'] as const)('%s is the one undici exports', async (name) => {
    const undici = await import('undici');
    expect(parts[name]).toBe(undici[name]);
  });

  it('ProxyAgent, loaded when a proxy is in use, is the one undici exports', async () => {
    const undici = await import('undici');
    expect(parts.proxyAgentClass()).toBe(undici.ProxyAgent);
  });
});
