// What the transport (transport.ts) asks of each connection beyond Node's own keep-alive: a
// delay before every answer, a close after every answer (announced or not), and an idle close
// that no header announces. Node can only announce its keep-alive timeout (it sends
// `Keep-Alive: timeout=N` whenever it has one), so the unannounced idle close is a timer of ours.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Transport } from './transport.js';
import { systemClock } from '../time/clock.js';

export interface ConnectionPolicy {
  /** Extra headers for every answer. */
  headers: Record<string, string>;
  /** Waits the answer delay, if any. */
  delay(): Promise<void>;
  /** Waits for the one worker and holds it for the transport's workMs (at once when it has none). */
  turn(): Promise<void>;
  /** Called as each request arrives: stops the idle clock and arms what follows the answer. */
  onRequest(req: IncomingMessage, res: ServerResponse): void;
}

export function tuneKeepAlive(server: { keepAliveTimeout?: number }, transport: Transport): void {
  // 0 turns Node's keep-alive timer (and with it the Keep-Alive header) off; our own timer closes.
  server.keepAliveTimeout = transport.advertiseKeepAlive ? transport.keepAliveMs : 0;
}

export function connectionPolicy(transport: Transport, random: () => number = Math.random): ConnectionPolicy {
  const idle = new WeakMap<Socket, NodeJS.Timeout>();
  const { meanMs, jitterMs } = transport.answerDelay;
  const closeSilently = transport.afterAnswer === 'close-silently';
  const idleClose = !closeSilently && !transport.advertiseKeepAlive;
  // When the worker is free again, on the machine's clock: each request takes the next slot.
  let workerFreeAt = 0;
  return {
    turn: () => {
      if (transport.workMs <= 0) return Promise.resolve();
      const now = systemClock.now();
      workerFreeAt = Math.max(now, workerFreeAt) + transport.workMs;
      return systemClock.sleep(workerFreeAt - now);
    },
    headers: transport.afterAnswer === 'close-announced' ? { connection: 'close' } : {},
    delay: () => {
      const ms = meanMs + (2 * random() - 1) * jitterMs;
      // On the machine's clock, as the sockets are, whatever time the service's clock tells.
      return systemClock.sleep(ms);
    },
    onRequest: (req, res) => {
      const socket = req.socket;
      clearTimeout(idle.get(socket));
      if (!closeSilently && !idleClose) return;
      res.once('finish', () => {
        // end(), not destroy(): the answer already written still reaches the client, then the FIN.
        if (closeSilently) return void socket.end();
        const timer = setTimeout(() => socket.end(), transport.keepAliveMs);
        timer.unref();
        idle.set(socket, timer);
      });
    },
  };
}
