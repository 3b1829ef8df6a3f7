// Which tokens a header can carry (§5.3 sends them in Authorization): never one with CR, LF or
// another control character, which would end the header and start another one.

import { expect, it } from 'vitest';
import { unsendableInHeader } from '../../src/spec/bearer-value.js';

it.each([
  ['tk_9f3a-._~+/=', []],
  ['eyJ.a b\tc', []],
  ['caf\u00e9', []],
  ['a\r\nx-injected: 1', ['CR', 'LF']],
  ['a\u0000b\u0000', ['NUL']],
  ['\u001b[31m', ['0x1b']],
  ['a\u007f', ['DEL']],
])('%j → %j', (token, named) => {
  expect(unsendableInHeader(token)).toEqual(named);
});
