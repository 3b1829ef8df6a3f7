// `serve --env-option ENV.KEY=VALUE`: an emulator pair whose production differs, started from the
// command line (a cutover finding shown by hand); a malformed one is refused before listening.

import { request } from 'node:https';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { oneErrorLine, runCliInProcess, startCli } from '../helpers/cli.js';

interface Line {
  environment: string;
  base_url: string;
  ca_file: string;
  client_id: string;
  client_secret: string;
}

/** One bounded request to the emulator on loopback: status and body (capped). */
function send(
  line: Line,
  method: string,
  path: string,
  { body, bearer }: { body?: string; bearer?: string } = {},
): Promise<{ status: number; body: string }> {
  const headers = {
    ...(body ? { 'content-type': 'application/json' } : {}),
    ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, line.base_url),
      { method, ca: readFileSync(line.ca_file), timeout: 5_000, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => void (text.length < 65_536 && (text += chunk)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

describe('serve --env-option', () => {
  it('production alone gets its token lifetime and validate method; sandbox keeps the defaults', async () => {
    const serve = startCli(
      [
        'serve',
        '--port',
        '0',
        '--environments',
        'sandbox,production',
        '--env-option',
        'production.token-lifetime=600',
        '--env-option',
        'production.validate-methods=POST',
      ],
      { timeoutMs: 30_000 },
    );
    try {
      await serve.waitFor(/"environment":"production"[^\n]*\n/);
      const [sandbox, production] = serve
        .stdout()
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Line);
      const lifetimes: Record<string, number> = {};
      for (const env of [sandbox!, production!]) {
        const issued = await send(env, 'POST', '/tokens', {
          body: JSON.stringify({ token: { client_id: env.client_id, client_secret: env.client_secret } }),
        });
        expect(issued.status, issued.body).toBe(200);
        const { token, expires_at: expiresAt } = JSON.parse(issued.body) as { token: string; expires_at: number };
        lifetimes[env.environment] = expiresAt - Date.now() / 1000;
        const get = (await send(env, 'GET', '/tokens/validate', { bearer: token })).status;
        expect({ env: env.environment, get }).toEqual({
          env: env.environment,
          get: env.environment === 'production' ? 405 : 200,
        });
      }
      expect(Math.abs(lifetimes['production']! - 600)).toBeLessThan(5);
      expect(Math.abs(lifetimes['sandbox']! - 86_400)).toBeLessThan(5);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.done;
    }
  });

  it.each([
    ['no key', 'production=3600', /write ENV\.KEY=VALUE, e\.g\. production\.token-lifetime=3600/],
    ['an unknown key', 'production.ttl=3600', /unknown key ttl; known: token-lifetime, rate-limit, /],
    [
      'a value out of range',
      'production.token-ttl=0',
      /production\.token-ttl=0: give a whole number of seconds from 1 to 172800/,
    ],
    ['a value the key does not take', 'production.ca=mine', /production\.ca=mine: the only value is other/],
    ['an unknown validate method', 'production.validate-methods=PUT', /give GET, POST or GET\+POST/],
    [
      'an environment not served',
      'staging.token-ttl=60',
      /perEnvironment names "staging", which is not one of the environments sandbox, production/,
    ],
    [
      'an intermediate without the profile',
      'production.intermediate=omitted',
      /needs a chain with an intermediate to omit \(the intermediate-ca profile\)/,
    ],
  ])('refuses %s with one line, exit 2', async (_, option, message) => {
    const res = await runCliInProcess(
      ['serve', '--port', '0', '--environments', 'sandbox,production', '--env-option', option],
      {
        timeoutMs: 20_000,
      },
    );
    expect(res.code, res.stderr).toBe(2);
    expect(oneErrorLine(res)).toMatch(message);
    expect(res.stdout).toBe('');
  });
});
