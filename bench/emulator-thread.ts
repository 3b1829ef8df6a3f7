// What the built-in emulator's worker thread takes off the CLI's thread: the CPU that thread spends
// per request when every request is a TLS handshake (the connection-close profile), with the
// emulator in-process (both ends of the handshake on one thread) and in a worker (the client's end
// only), and the rate 8 requests at once reach. Linux (reads the main thread's CPU in /proc).
// Run: node scripts/run-ts.mjs bench/emulator-thread.ts [REQUESTS] [ROUNDS]   (1500 and 2 unless told)

import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { createEmulator, type Emulator, type EmulatorOptions } from '../src/emulator/index.js';
import { startEmulatorWorker } from '../src/emulator/worker/host.js';
import { Redactor } from '../src/http/redact.js';
import { ServiceClient } from '../src/http/service-client.js';

const REQUESTS = Number(process.argv[2] ?? 1500);
const ROUNDS = Number(process.argv[3] ?? 2);
const AT_ONCE = 8;

/** CPU ms of this process's main thread: utime + stime of its task, in clock ticks of 10 ms. */
function mainThreadCpuMs(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measure(kind: string, emulator: Emulator): Promise<void> {
  const target = { environment: 'sandbox', baseUrl: emulator.url, credentials: emulator.credentials };
  const http = new ServiceClient(
    { ...target, caPem: emulator.caPem, caFile: emulator.caFile, emulated: true },
    {
      redactor: new Redactor(),
    },
  );
  try {
    const { issued } = await http.issueToken();
    const cpuBefore = mainThreadCpuMs();
    const started = performance.now();
    let sent = 0;
    let answered = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (sent++ < REQUESTS) if ((await http.validate(issued?.token)).status === 200) answered++;
      }),
    );
    const cpuMs = mainThreadCpuMs() - cpuBefore;
    const wallS = (performance.now() - started) / 1000;
    console.log(
      `${kind}  ${answered}/${REQUESTS} answered 200  ${(REQUESTS / wallS).toFixed(0)} req/s  ` +
        `CLI thread ${(cpuMs / REQUESTS).toFixed(2)} ms CPU per request  load ${loadavg()[0]!.toFixed(1)}`,
    );
  } finally {
    await http.close();
    await emulator.close();
  }
}

// No limit: every request is answered by the route itself, not turned away by the bucket.
const options = { port: 0, profiles: ['connection-close'], rateLimit: { rps: 0, burst: 0 } } satisfies EmulatorOptions;
console.log(`${REQUESTS} GET /tokens/validate, ${AT_ONCE} at once, a TLS handshake each (connection-close)`);
for (let round = 0; round < ROUNDS; round++) {
  await measure('in-process', await createEmulator(options));
  await measure('worker    ', await startEmulatorWorker(options));
}
