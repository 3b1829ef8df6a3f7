// The spec's bodies are JSON objects (§4, §7): the one test that a parsed value is one, shared by
// the checks, the emulator and the k6 scenarios.

export const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
