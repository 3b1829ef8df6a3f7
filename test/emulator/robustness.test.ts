// A malformed request never takes the emulator down: each of these is followed by a normal call.

import { connect as netConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Running } from './support/client.js';
import { portOf } from './support/tls-probe.js';

let s: Running;
let port: number;
beforeAll(async () => {
  s = await start();
  port = portOf(s.emu.url);
});
afterAll(() => s.close());

/** Sends raw bytes over TLS and returns what came back before the server hung up (bounded). */
function rawTls(payload: string, hangUp = false): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: s.emu.caPem, servername: 'localhost' });
    const chunks: Buffer[] = [];
    const done = () => {
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    socket.setTimeout(3_000, done);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.once('close', done);
    socket.once('error', done);
    socket.once('secureConnect', () => {
      socket.write(payload);
      if (hangUp) setImmediate(done);
    });
  });
}

const alive = async () => expect((await s.call('POST', '/tokens/health_check')).status).toBe(200);

describe('malformed input', () => {
  it('answers a request line that is not HTTP with 400', async () => {
    expect(await rawTls('HELLO THERE\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    await alive();
  });

  it('answers oversized headers with 431', async () => {
    const reply = await rawTls(`POST /tokens HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(reply).toMatch(/^HTTP\/1\.1 431/);
    await alive();
  });

  it('survives a client that hangs up in the middle of a body', async () => {
    await rawTls('POST /tokens HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{"token":', true);
    await alive();
  });

  it('survives a TLS record of garbage and a TCP reset before any byte', async () => {
    await new Promise<void>((resolve) => {
      const socket = netConnect({ host: '127.0.0.1', port }, () => {
        // A handshake record holding a message of unknown type 255: OpenSSL alerts and hangs up.
        socket.write(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x04, 0xff, 0x00, 0x00, 0x00]));
      });
      socket.on('error', () => undefined);
      // Read (and drop) the alert: a paused socket never sees the end, so never closes.
      socket.resume();
      socket.once('close', () => resolve());
      socket.setTimeout(3_000, () => socket.destroy());
    });
    await new Promise<void>((resolve) => {
      const socket = netConnect({ host: '127.0.0.1', port }, () => {
        socket.resetAndDestroy();
        resolve();
      });
      socket.on('error', () => undefined);
    });
    await alive();
  });

  it('keeps connections alive for about 5 s', async () => {
    const a = await s.call('POST', '/tokens/health_check');
    expect(a.headers.connection).toBe('keep-alive');
    expect(a.headers['keep-alive']).toBe('timeout=5');
  });
});
