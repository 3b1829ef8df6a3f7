#!/usr/bin/env node
// A well-behaved client of the Credit Evaluation Service, in Node with undici: copy it and keep
// what you need. It reads the connection from the environment (§5.9: no secret in code), fetches a
// token with the §4.1 body, reuses it until expires_at (§5.5), sends it as Bearer (§5.3), fetches a
// new one after expiry or on 401 (§3, §7: no refresh tokens), and on 429 waits Retry-After or backs
// off with growing waits (§7). TLS 1.3 only (§5.8). Every request has a timeout. `npm i undici`.
//
//   CES_BASE_URL=https://… CES_CLIENT_ID=… CES_CLIENT_SECRET=… [CES_CA_FILE=ca.pem] node node-undici.mjs
//   ces-harness client -- node examples/clients/node-undici.mjs

import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    console.error(`client: set ${name}`);
    process.exit(2);
  }
  return value;
};
const baseUrl = env('CES_BASE_URL').replace(/\/$/, '');
const clientId = env('CES_CLIENT_ID');
const clientSecret = env('CES_CLIENT_SECRET');
const caFile = process.env.CES_CA_FILE;
/** How long to keep making calls; ces-harness client sets it so tokens expire mid-run. */
const runSeconds = Number(process.env.CES_RUN_SECONDS ?? 5);

const dispatcher = new Agent({
  connect: { minVersion: 'TLSv1.3', ...(caFile ? { ca: readFileSync(caFile, 'utf8') } : {}) },
  headersTimeout: 10_000,
  bodyTimeout: 10_000,
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const MAX_RETRIES = 6;

async function send(method, path, headers, body) {
  const res = await request(`${baseUrl}${path}`, { method, headers, body, dispatcher, signal: AbortSignal.timeout(15_000) });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

/** Sends, and on 429 waits as told (Retry-After) or with growing waits, up to MAX_RETRIES times. */
async function withRateLimit(call) {
  for (let attempt = 0; ; attempt++) {
    const res = await call();
    if (res.status !== 429 || attempt >= MAX_RETRIES) return res;
    const retryAfter = Number(res.headers['retry-after']);
    const waitMs = Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : Math.min(250 * 2 ** attempt, 8_000);
    await sleep(waitMs);
  }
}

let token; // { value, expiresAt (epoch s) }

async function fetchToken() {
  const res = await withRateLimit(() =>
    send('POST', '/tokens', { 'content-type': 'application/json' }, JSON.stringify({ token: { client_id: clientId, client_secret: clientSecret } })),
  );
  if (res.status !== 200) throw new Error(`POST /tokens answered ${res.status}`);
  const body = JSON.parse(res.text);
  token = { value: body.token, expiresAt: body.expires_at };
}

async function currentToken() {
  if (token === undefined || Date.now() / 1000 >= token.expiresAt) await fetchToken();
  return token.value;
}

async function evaluate(payload) {
  const call = async () => withRateLimit(async () => send('POST', '/v1/evaluation', { authorization: `Bearer ${await currentToken()}`, 'content-type': 'application/json' }, JSON.stringify(payload)));
  let res = await call();
  if (res.status === 401) {
    // Expired between our clock and theirs: one new token, one retry (§7).
    token = undefined;
    res = await call();
  }
  return res;
}

const until = Date.now() + runSeconds * 1000;
let failures = 0;
for (let i = 1; Date.now() < until; i++) {
  const res = await evaluate({ request: i });
  console.log(`call ${i}: ${res.status}`);
  if (res.status !== 200) failures++;
  await sleep(200);
}
await dispatcher.close();
process.exit(failures === 0 ? 0 : 1);
