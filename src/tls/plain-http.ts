// Is plain HTTP served on the TLS port? §5.8 wants TLS on every connection, so a plain-text
// request must not be answered with a success. Written on a raw socket rather than an HTTP client
// so nothing is negotiated, upgraded or retried, and whatever comes back can be shown as it is.

import net from 'node:net';

export interface PlainHttpResult {
  /** An HTTP/1.x status line with a 2xx status came back. */
  served: boolean;
  /** The first line of the answer, when it was an HTTP status line. */
  statusLine?: string;
  /** The connection ended (or the time ran out) without any HTTP status line. */
  closedWithoutHttp: boolean;
  /** Bytes received; a TLS alert or nothing at all when the server speaks only TLS. */
  bytes: number;
  timedOut: boolean;
  /** Set when no TCP connection could be made at all (ECONNREFUSED, …): nothing was judged. */
  error?: { code: string; message: string };
  durationMs: number;
}

const MAX_BYTES = 4 * 1024;
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: [^\r\n]*)?$/;

export function tryPlainHttp(host: string, port: number, timeoutMs: number): Promise<PlainHttpResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    let settled = false;
    let connected = false;

    const finish = (timedOut: boolean, err?: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const durationMs = Math.round(performance.now() - started);
      if (err && !connected) {
        resolve({
          served: false,
          closedWithoutHttp: false,
          bytes: 0,
          timedOut,
          error: { code: err.code ?? 'ERR', message: err.message },
          durationMs,
        });
        return;
      }
      const firstLine = buf.toString('latin1').split('\r\n', 1)[0] ?? '';
      const m = STATUS_LINE.exec(firstLine);
      const status = m?.[1] ? Number(m[1]) : undefined;
      resolve({
        served: status !== undefined && status >= 200 && status < 300,
        ...(m ? { statusLine: firstLine } : {}),
        closedWithoutHttp: !m,
        bytes: buf.length,
        timedOut,
        durationMs,
      });
    };

    const timer = setTimeout(() => {
      const err: NodeJS.ErrnoException = new Error(`no answer within ${timeoutMs} ms`);
      err.code = 'ETIMEDOUT';
      finish(true, err);
    }, timeoutMs);

    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      connected = true;
      // Connection: close so a plain HTTP server ends the answer by closing; Host as a client
      // would send it, with brackets for an IPv6 literal.
      const hostHeader = net.isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`;
      socket.write(
        `POST /tokens/health_check HTTP/1.1\r\nHost: ${hostHeader}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
    });
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]).subarray(0, MAX_BYTES);
      // The status line is all that is judged: stop as soon as it is complete.
      if (buf.includes('\r\n') || buf.length >= MAX_BYTES) finish(false);
    });
    socket.once('end', () => finish(false));
    socket.once('close', () => finish(false));
    // A reset after the request is the TLS-only server hanging up: a result, not a failure.
    socket.on('error', (err: NodeJS.ErrnoException) => finish(false, err));
  });
}
