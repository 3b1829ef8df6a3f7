#!/usr/bin/env python3
"""A well-behaved client of the Credit Evaluation Service in Python, standard library only.

Copy it and keep what you need. The connection comes from the environment (§5.9: no secret in
code): CES_BASE_URL, CES_CLIENT_ID, CES_CLIENT_SECRET and, for a private CA, CES_CA_FILE. It fetches
a token with the §4.1 body, reuses it until expires_at (§5.5), sends it as Bearer (§5.3), fetches a
new one after expiry or on 401 (§3, §7: there are no refresh tokens), and on 429 waits Retry-After
or backs off with growing waits (§7). TLS 1.3 only (§5.8); every request has a timeout.

    ces-harness client -- python3 examples/clients/python_client.py
"""

import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.request


def env(name):
    value = os.environ.get(name)
    if not value:
        print(f"client: set {name}", file=sys.stderr)
        sys.exit(2)
    return value


BASE_URL = env("CES_BASE_URL").rstrip("/")
CLIENT_ID = env("CES_CLIENT_ID")
CLIENT_SECRET = env("CES_CLIENT_SECRET")
RUN_SECONDS = float(os.environ.get("CES_RUN_SECONDS", "5"))
TIMEOUT_S = 15
MAX_RETRIES = 6

TLS = ssl.create_default_context(cafile=os.environ.get("CES_CA_FILE"))
TLS.minimum_version = ssl.TLSVersion.TLSv1_3


def send(method, path, headers, body=None):
    """One request; (status, headers, text) whatever the status."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE_URL + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT_S, context=TLS) as res:
            return res.status, res.headers, res.read(1 << 20).decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read(1 << 20).decode(errors="replace")


def with_rate_limit(call):
    """Sends; on 429 waits as told (Retry-After) or with growing waits, up to MAX_RETRIES times."""
    for attempt in range(MAX_RETRIES + 1):
        status, headers, text = call()
        if status != 429 or attempt == MAX_RETRIES:
            return status, headers, text
        retry_after = headers.get("Retry-After", "")
        wait_s = int(retry_after) if retry_after.isdigit() else min(0.25 * 2**attempt, 8)
        time.sleep(wait_s)


token = None  # {"value": str, "expires_at": int}


def fetch_token():
    global token
    body = {"token": {"client_id": CLIENT_ID, "client_secret": CLIENT_SECRET}}
    status, _, text = with_rate_limit(lambda: send("POST", "/tokens", {"Content-Type": "application/json"}, body))
    if status != 200:
        raise RuntimeError(f"POST /tokens answered {status}")
    answer = json.loads(text)
    token = {"value": answer["token"], "expires_at": answer["expires_at"]}


def current_token():
    if token is None or time.time() >= token["expires_at"]:
        fetch_token()
    return token["value"]


def evaluate(payload):
    def call():
        headers = {"Authorization": f"Bearer {current_token()}", "Content-Type": "application/json"}
        return with_rate_limit(lambda: send("POST", "/v1/evaluation", headers, payload))

    status, headers, text = call()
    if status == 401:
        # Expired between our clock and theirs: one new token, one retry (§7).
        global token
        token = None
        status, headers, text = call()
    return status


def main():
    failures = 0
    until = time.time() + RUN_SECONDS
    i = 0
    while time.time() < until:
        i += 1
        status = evaluate({"request": i})
        print(f"call {i}: {status}", flush=True)
        if status != 200:
            failures += 1
        time.sleep(0.2)
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
