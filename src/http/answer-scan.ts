// What the service client learns from every answer it reads, before any check sees it: whether it
// echoes a client secret or carries a token issued to this run (by value, in whatever field,
// header or encoding), its JSON, and the credentials it hands out, which the redactor hides (and,
// from a success, judges by) from then on. It runs on every answer a rate-limit probe's paced
// stream reads, so its cost is per answer (bench/answer-cost.ts).

import { handedOutIn } from './handed-out.js';
import { parseJson } from './read-answer.js';
import type { Redactor } from './redact.js';

export interface AnswerScan {
  echoesSecret: boolean;
  carriesIssuedToken: boolean;
  json: unknown;
}

export function scanAnswer(
  redactor: Redactor,
  status: number,
  headers: Record<string, string>,
  text: string,
): AnswerScan {
  // Judged by value, before this answer's own credentials are known: whatever the field or header.
  const answer = `${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n')}\n${text}`;
  const held = redactor.heldWhole(answer);
  const json = parseJson(text);
  for (const { value, judged } of handedOutIn(status, json, headers)) {
    if (judged) redactor.addToken(value);
    else redactor.addSeen(value);
  }
  return { echoesSecret: held.secret, carriesIssuedToken: held.token, json };
}
