// The harness's own CPU per answer: what the service client does with every answer it reads
// (src/http/answer-scan.ts: the scans for an echoed secret and an issued token, the JSON parse,
// the credentials the answer hands out), timed on answers the built-in emulator really sends (a
// token, a validate 200, a 429 with its headers, a 401). A rate-limit probe's paced stream reads up
// to 50 a second on top of undici and the service itself; under CPU load each µs here is a slot late.
// Run: node scripts/run-ts.mjs bench/answer-cost.ts [ROUNDS]
import { createEmulator } from '../src/emulator/index.js';
import { Redactor } from '../src/http/redact.js';
import { ServiceClient } from '../src/http/service-client.js';
import { scanAnswer } from '../src/http/answer-scan.js';
import type { Exchange } from '../src/http/exchange.js';

const ROUNDS = Number(process.argv[2] ?? 2000);
const emulator = await createEmulator({ port: 0, environments: ['sandbox'], tokenTtlS: 8 });
const env = emulator.environments[0]!;
const redactor = new Redactor();
const http = new ServiceClient(
  { environment: env.name, baseUrl: env.url, credentials: env.credentials, caPem: emulator.caPem, emulated: true },
  { redactor },
);
const answers: Array<[string, Exchange]> = [];
try {
  const issued = await http.issueToken();
  answers.push(['POST /tokens 200', issued]);
  answers.push(['GET /tokens/validate 200', await http.validate(issued.issued!.token)]);
  answers.push(['GET /tokens/validate 401', await http.validate('x'.repeat(43))]);
  // The bucket spent: the 429 a probe reads most.
  let limited: Exchange | undefined;
  for (let i = 0; i < 400 && !limited; i++) {
    const ex = await http.validate(issued.issued!.token, 'GET', { waitOut429: false });
    if (ex.status === 429) limited = ex;
  }
  if (limited) answers.push(['GET /tokens/validate 429', limited]);
} finally {
  await emulator.close();
}

console.log(`known values: a secret with its client id, the tokens the emulator issued; ${ROUNDS} rounds each`);
for (const [label, ex] of answers) {
  // Two dates in turn, as a stream's answers differ: the reader keeps only the last input's readings.
  const dated = [0, 1].map((s) => ({ ...ex.headers, date: new Date(Date.UTC(2026, 10, 29, 4, 0, s)).toUTCString() }));
  for (let i = 0; i < 200; i++) scanAnswer(redactor, ex.status, dated[i % 2]!, ex.text);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) scanAnswer(redactor, ex.status, dated[i % 2]!, ex.text);
  const wall = (performance.now() - t0) / ROUNDS;
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = (cpu.user + cpu.system) / ROUNDS;
  const size = ex.text.length + Object.entries(ex.headers).reduce((n, [k, v]) => n + k.length + v.length + 3, 0);
  console.log(
    `${label.padEnd(26)} ${String(size).padStart(5)} chars  ${cpuUs.toFixed(1).padStart(6)} µs CPU  ${(wall * 1000).toFixed(1).padStart(6)} µs wall`,
  );
}

// For scale: the whole of one request through the service client (undici, TLS, the emulator in
// this same process, the scan), sequential, as a probe's stream sends them.
{
  const emulator2 = await createEmulator({ port: 0, environments: ['sandbox'], tokenTtlS: 3600 });
  const e = emulator2.environments[0]!;
  const client = new ServiceClient(
    { environment: e.name, baseUrl: e.url, credentials: e.credentials, caPem: emulator2.caPem, emulated: true },
    { redactor: new Redactor() },
  );
  try {
    const token = (await client.issueToken()).issued!.token;
    const n = 300;
    for (let i = 0; i < 20; i++) await client.healthCheck({ waitOut429: false });
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await client.validate(token, 'GET', { waitOut429: false });
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `one validate through the service client, emulator in-process: ${((cpu.user + cpu.system) / n).toFixed(0)} µs CPU (${n} requests, mostly 429 once the bucket is spent)`,
    );
  } finally {
    await emulator2.close();
  }
}
