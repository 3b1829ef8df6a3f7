// §2 "Client credentials": what a client sends to POST /tokens (as `client_id` and
// `client_secret` inside `token`, §4.1). The harness reads them per environment; the emulator
// generates and accepts them.

export interface Credentials {
  clientId: string;
  clientSecret: string;
}
