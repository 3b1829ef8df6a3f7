// Run by undici-parts.test.ts in a process of its own (`node scripts/run-ts.mjs` this file): the
// fast tier's workers run many files, one of which may have loaded undici's index already. Sends one
// request with src/http/undici.ts's parts and prints what came back and whether the index loaded.
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import * as parts from '../../src/http/undici.js';

const indexLoaded = () =>
  Object.keys(createRequire(import.meta.url).cache).some((k) => /[\\/]undici[\\/]index\.js$/.test(k));

const server = createServer((req, res) => res.end(`${req.method} ${req.url}`));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const agent = new parts.Agent();
try {
  const { port } = server.address() as AddressInfo;
  const res = await parts.request(`http://127.0.0.1:${port}/tokens/validate?x=1`, {
    method: 'POST',
    dispatcher: agent,
  });
  const answer = [res.statusCode, await res.body.text()];
  process.stdout.write(`${JSON.stringify({ answer, indexLoaded: indexLoaded() })}\n`);
} finally {
  await agent.close();
  server.close();
}
