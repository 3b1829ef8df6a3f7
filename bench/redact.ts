// How long the redactor takes on the largest answer the service client keeps (64 KiB, the body
// cap) with 10 known values (2 secrets with their Basic auth pairs, 8 tokens), and what the index
// of their forms costs to build and hold. Run: node scripts/run-ts.mjs bench/redact.ts [TOKENS]
// (8 tokens unless told: a long run that is handed hundreds shows how the index grows).
import { randomBytes } from 'node:crypto';
import { Redactor } from '../src/http/redact.js';

const r = new Redactor();
const heapBefore = process.memoryUsage().heapUsed;
let t = performance.now();
for (let i = 0; i < 2; i++) r.addSecret(`se"cr\\et+/% ${randomBytes(12).toString('hex')}`, `client-${i}`);
const tokens = Array.from({ length: Number(process.argv[2] ?? 8) }, () => randomBytes(32).toString('base64url'));
for (const token of tokens) r.addToken(token);
const buildMs = performance.now() - t;
const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 1e6;

// 64 KiB of JSON, one token hex-encoded in it.
const filler = randomBytes(48 * 1024).toString('base64');
const body = JSON.stringify({ data: filler, echo: Buffer.from(tokens[3]!).toString('hex') }).slice(0, 64 * 1024);
const ROUNDS = 50;
const time = (f: () => unknown) => {
  f();
  t = performance.now();
  for (let i = 0; i < ROUNDS; i++) f();
  return (performance.now() - t) / ROUNDS;
};
console.log(`index of ${tokens.length + 2} values: ${buildMs.toFixed(1)} ms to build, ~${heapMb.toFixed(1)} MB`);
console.log(`text() on ${body.length} characters: ${time(() => r.text(body)).toFixed(2)} ms`);
console.log(`foreign() on the same: ${time(() => r.foreign(body)).toFixed(2)} ms`);
console.log(`containsSecret() on the same: ${time(() => r.containsSecret(body)).toFixed(2)} ms`);
