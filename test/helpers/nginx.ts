// nginx as real ground truth for the rate-limit probe: Debian's nginx (installed by .ci/run as
// nginx-light) in front of the emulator, with its own limiter (limit_req: a leaky bucket with
// `burst` and `nodelay`, a different algorithm from the emulator's token bucket). nginx terminates
// TLS 1.3 with the three suites of §5.8 using the emulator's own certificate, so the harness trusts
// it through the emulator's CA, and proxies over TLS 1.3 to the emulator, whose limiter is off.
//
// Everything nginx writes (pid, error log, temp folders) stays in a temp folder, it runs in the
// foreground as one process (`daemon off; master_process off;`), and stop() ends exactly the
// process this helper started.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopper, untilServing } from './spawned-server.js';

export const NGINX_BINARY = process.env.NGINX_BINARY ?? '/usr/sbin/nginx';

/** Why the nginx tests cannot run here, or undefined when they can. */
export function nginxMissing(): string | undefined {
  return existsSync(NGINX_BINARY)
    ? undefined
    : `nginx not found at ${NGINX_BINARY} (apt-get install nginx-light, or set NGINX_BINARY)`;
}

export interface NginxLimit {
  /** limit_req_zone rate, requests per second (per minute with `per: 'm'`). */
  rate: number;
  /**
   * The rate's unit: nginx's `r/s`, or `r/m` (still a leaky bucket, draining one request every
   * 60 / rate seconds: `rate=600r/m` is 10 r/s with its burst, not a window of a minute).
   */
  per?: 's' | 'm';
  /** limit_req burst (with nodelay unless `queue` says otherwise). */
  burst: number;
  /**
   * limit_req without nodelay, its documented default form: excess requests wait their turn in a
   * queue of `burst` (`delay`: the first that many of them pass at once, nginx's `delay=`).
   */
  queue?: { delay?: number };
  /** limit_req_status (of the first zone, for the location); nginx's own default is 503, which §7 does not allow. */
  status?: 429 | 503;
  /** Key of the limit: per client address (shared by every credential) by default. */
  key?: '$binary_remote_addr' | '$http_authorization';
  /** Extra headers on refusals, e.g. RateLimit-Reset (nginx sends no Retry-After of its own). */
  refusalHeaders?: Record<string, string>;
}

export interface NginxOptions {
  /** The emulator's https URL, e.g. https://127.0.0.1:40123 (its own limiter should be off). */
  upstream: string;
  /** Folder holding the emulator's ca.pem, server.pem and server-key.pem (its tlsDir option). */
  tlsDir: string;
  /**
   * One zone, or several on the one location (a `limit_req` each, in this order): nginx passes a
   * request only when every zone admits it, counts it in every zone only then (a refused one in
   * none), and delays it by the longest wait any zone asks (ngx_http_limit_req_module.c, 1.22).
   */
  limit: NginxLimit | readonly NginxLimit[];
}

export interface RunningNginx {
  url: string;
  port: number;
  dir: string;
  config: string;
  stop(): Promise<void>;
}

/** The zone's name in the config: `ces` for the first (as it always was), `ces2`, `ces3`… after it. */
const zoneName = (i: number): string => (i === 0 ? 'ces' : `ces${i + 1}`);

/** One `limit_req` line: its zone, burst, and whether excess requests wait (no `nodelay`). */
function limitReq(limit: NginxLimit, i: number): string {
  const { burst, queue } = limit;
  const waits = queue === undefined ? ' nodelay' : queue.delay ? ` delay=${queue.delay}` : '';
  // nginx refuses burst=0; leaving it out means the same (no request beyond the rate).
  return `limit_req zone=${zoneName(i)}${burst > 0 ? ` burst=${burst}` : ''}${waits};`;
}

export function nginxConfig(dir: string, port: number, opts: NginxOptions): string {
  const zones: readonly NginxLimit[] = Array.isArray(opts.limit) ? opts.limit : [opts.limit as NginxLimit];
  const { status = 429, refusalHeaders = {} } = zones[0]!;
  const extraHeaders = Object.entries(refusalHeaders)
    .map(([name, value]) => `\n      add_header ${name} "${value}" always;`)
    .join('');
  const upstream = new URL(opts.upstream);
  const errorName = status === 429 ? 'rate_limit_exceeded' : 'service_unavailable';
  const zoneLines = zones
    .map(
      (z, i) =>
        `limit_req_zone ${z.key ?? '$binary_remote_addr'} zone=${zoneName(i)}:1m rate=${z.rate}r/${z.per ?? 's'};`,
    )
    .join('\n  ');
  return `# Written by test/helpers/nginx.ts for one test run; everything lives in ${dir}.
daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, 'nginx.pid')};
error_log ${join(dir, 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'client_body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};

  ${zoneLines}

  upstream emulator {
    server ${upstream.hostname}:${upstream.port};
    # Reused TLS connections to the emulator: a handshake per request would cost the emulator
    # (in the test's own process) more CPU than the probe it is measuring.
    keepalive 16;
  }

  server {
    listen 127.0.0.1:${port} ssl;
    # §5.8: TLS 1.3 only, exactly the three suites (OpenSSL configures 1.3 suites apart from ciphers).
    ssl_protocols TLSv1.3;
    ssl_conf_command Ciphersuites TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256;
    ssl_certificate ${join(opts.tlsDir, 'server.pem')};
    ssl_certificate_key ${join(opts.tlsDir, 'server-key.pem')};

    ${zones.map(limitReq).join('\n    ')}
    limit_req_status ${status};
    # §7: an error body is a JSON object with a string \`error\`; nginx's own page is HTML.
    error_page ${status} = @limited;

    location / {
      proxy_pass https://emulator;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # nginx 1.22 does not offer TLS 1.3 upstream by default; the emulator speaks nothing else.
      proxy_ssl_protocols TLSv1.3;
      proxy_ssl_trusted_certificate ${join(opts.tlsDir, 'ca.pem')};
      proxy_ssl_verify on;
      # nginx 1.22 checks the upstream name as a DNS name only; the emulator's certificate names
      # localhost besides the loopback addresses.
      proxy_ssl_name localhost;
      proxy_ssl_session_reuse on;
    }

    location @limited {
      default_type application/json;${extraHeaders}
      return ${status} '{"error":"${errorName}"}';
    }
  }
}
`;
}

export async function startNginx(opts: NginxOptions): Promise<RunningNginx> {
  const dir = await mkdtemp(join(tmpdir(), 'ces-nginx-'));
  const log = async () => readFile(join(dir, 'error.log'), 'utf8').catch(() => '');
  // The port is free when picked and may be taken before nginx binds it: try a few.
  let lastError: unknown;
  for (let tries = 0; tries < 3; tries++) {
    const port = await freePort();
    const config = nginxConfig(dir, port, opts);
    await writeFile(join(dir, 'nginx.conf'), config);
    // -e: the error log nginx uses before it has read the config (Debian's default is stderr).
    const child = spawn(NGINX_BINARY, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
      stdio: 'ignore',
    });
    try {
      await untilServing('nginx', child, port, log, 10_000);
    } catch (err) {
      lastError = err;
      if (child.exitCode === null) child.kill('SIGKILL');
      // Only a port taken between picking and binding is worth another try; a bad config is not.
      if (/Address already in use/.test(String(err))) continue;
      break;
    }
    // SIGQUIT: graceful shutdown, finishing what is in flight.
    const stop = stopper(child, 'SIGQUIT', dir);
    return { url: `https://127.0.0.1:${port}`, port, dir, config, stop };
  }
  await rm(dir, { recursive: true, force: true });
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}
