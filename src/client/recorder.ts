// Turns what the emulator answered into RecordedRequests as they happen: learns each token it hands
// out (from the POST /tokens answer) so later bearer tokens can be told issued or not, live or
// expired, and looks for the secret everywhere it must not be. Only fingerprints and shapes are kept.

import type { Observed } from '../emulator/index.js';
import { fingerprint, Redactor } from '../http/redact.js';
import { isJsonObject } from '../spec/json-object.js';
import { bodyShape } from './body-shape.js';
import type { BearerSeen, RecordedRequest } from './record.js';

const headerValue = (v: string | string[] | undefined): string => (Array.isArray(v) ? v.join(', ') : (v ?? ''));

export class Recorder {
  readonly requests: RecordedRequest[] = [];
  /** Raw token → when it was issued and when it expires (ms since start). Never leaves this object. */
  private readonly tokens = new Map<string, { fetchedMs: number; expiresMs: number }>();
  private readonly secrets = new Redactor();

  constructor(
    private readonly startMs: number,
    secret: string,
    clientId: string,
    /** Told of every token handed out, so output can be redacted of it. */
    private readonly onToken: (token: string) => void = () => undefined,
  ) {
    this.secrets.addSecret(secret, clientId);
  }

  add({ req, reply, arrivedMs, answeredMs }: Observed): RecordedRequest {
    const atMs = arrivedMs - this.startMs;
    const record: RecordedRequest = {
      atMs,
      answeredMs: answeredMs - this.startMs,
      method: req.method,
      path: req.path.slice(0, 200),
      queryNames: [...new URLSearchParams(req.query ?? '').keys()].slice(0, 20),
      contentType: headerValue(req.headers['content-type']),
      bodyShape: bodyShape(req.body),
      headers: this.headers(req.headers),
      status: reply.status,
      ...(reply.headers['retry-after'] !== undefined ? { retryAfter: reply.headers['retry-after'] } : {}),
      bearer: this.bearer(headerValue(req.headers.authorization)),
      secretIn: this.secretPlaces(req.path, req.query ?? '', req.headers),
    };
    const issued = reply.status === 200 && req.path === '/tokens' ? this.learnToken(reply.body, atMs) : undefined;
    if (issued) record.issued = issued;
    this.requests.push(record);
    return record;
  }

  private learnToken(body: string, atMs: number): RecordedRequest['issued'] {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return undefined;
    }
    if (!isJsonObject(parsed) || typeof parsed.token !== 'string' || typeof parsed.expires_at !== 'number')
      return undefined;
    const expiresMs = parsed.expires_at * 1000 - this.startMs;
    // The same token handed out again (§4.1 rule 1) keeps when it was first fetched.
    if (!this.tokens.has(parsed.token)) this.tokens.set(parsed.token, { fetchedMs: atMs, expiresMs });
    this.onToken(parsed.token);
    return { token: fingerprint(parsed.token), expiresMs };
  }

  private bearer(authorization: string): BearerSeen {
    const match = /^(\S+)(?:\s+(.*))?$/.exec(authorization.trim());
    if (!match) return { scheme: '' };
    const scheme = match[1]!;
    const value = match[2]?.trim();
    if (!value) return { scheme };
    const known = this.tokens.get(value);
    return {
      scheme,
      token: fingerprint(value),
      ...(known ? { fetchedMs: known.fetchedMs, expiresMs: known.expiresMs } : {}),
    };
  }

  private headers(headers: Observed['req']['headers']): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, raw] of Object.entries(headers).slice(0, 40)) {
      const value = headerValue(raw);
      if (name === 'authorization') {
        const b = this.bearer(value);
        out[name] = b.token ? `${b.scheme} ${b.token}` : b.scheme;
      } else out[name] = this.secrets.containsSecret(value) ? '[redacted]' : this.secrets.foreign(value).slice(0, 120);
    }
    return out;
  }

  private secretPlaces(path: string, query: string, headers: Observed['req']['headers']): string[] {
    const places: string[] = [];
    if (this.secrets.containsSecret(path)) places.push('the URL path');
    if (this.secrets.containsSecret(query)) places.push('the query string');
    for (const [name, raw] of Object.entries(headers))
      if (this.secrets.containsSecret(headerValue(raw))) places.push(`header ${name}`);
    return places;
  }
}
