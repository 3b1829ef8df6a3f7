// Text from the service (a body a message quotes, a header, an error string) may hold control
// characters. Written raw, an ESC sequence recolours or rewrites the user's terminal, a NUL cuts a
// CI log, and either hides what the service really sent. So they are shown as visible escapes:
// ESC as \x1b, NUL as \u0000, as in a JavaScript string literal. A backslash stays as it is: this
// makes text safe to show, it is not an encoding meant to be reversed.

import { mapStrings } from '../../plain-data.js';

// C0 controls, DEL and C1 controls; also the Unicode line and paragraph separators and the
// bidirectional overrides, which reorder what a reader sees.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export interface PrintableOptions {
  /** Keep LF (and CRLF, as LF) and tab: for renderers that show multi-line text. Default false. */
  multiline?: boolean;
}

function escape(c: string): string {
  const code = c.charCodeAt(0);
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if (c === '\t') return '\\t';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character shown as an escape; NUL as \u0000, the rest as \xNN. */
export function printable(text: string, options: PrintableOptions = {}): string {
  const source = options.multiline ? text.replace(/\r\n/g, '\n') : text;
  return source.replace(CONTROL, (c) => {
    if (options.multiline && (c === '\n' || c === '\t')) return c;
    return c === '\u0000' ? '\\u0000' : escape(c);
  });
}

/** Every string inside plain data (a report, a result) made printable, the shape unchanged. */
export const printableDeep = <T>(value: T, options: PrintableOptions = {}): T =>
  mapStrings(value, (v) => printable(v, options));
