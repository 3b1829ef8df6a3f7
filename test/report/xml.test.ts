// The XML writer behind junit.xml: its exact layout, its escaping, and a round trip of hostile
// strings through a real parser (fast-xml-parser, a dev dependency) that must give back exactly
// what went in, characters XML cannot carry aside.

import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { renderXml, xmlChars, type XmlElement } from '../../src/report/common/xml.js';

// htmlEntities: numeric character references (&#9;) are decoded too, as every conforming parser does.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  htmlEntities: true,
});

function roundTrip(value: string): { attribute: unknown; text: unknown } {
  const xml = renderXml({ name: 'r', attributes: { a: value }, content: value });
  expect(XMLValidator.validate(xml)).toBe(true);
  const r = (parser.parse(xml) as { r: { '@a': unknown; '#text': unknown } }).r;
  return { attribute: r['@a'], text: r['#text'] };
}

describe('renderXml', () => {
  it('writes a declaration, one element per line indented by two, text inline, and empty elements closed', () => {
    const tree: XmlElement = {
      name: 'suites',
      attributes: { name: 'x', tests: 2 },
      content: [
        { name: 'case', attributes: { name: 'a' }, content: [{ name: 'out', content: 'line 1\nline 2' }] },
        { name: 'case', attributes: { name: 'b' }, content: [] },
        { name: 'empty', content: '' },
      ],
    };
    expect(renderXml(tree)).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<suites name="x" tests="2">',
        '  <case name="a">',
        '    <out>line 1',
        'line 2</out>',
        '  </case>',
        '  <case name="b"/>',
        '  <empty/>',
        '</suites>',
        '',
      ].join('\n'),
    );
  });

  it.each([
    [
      'markup',
      `<a href="x">&amp; 'q'</a>`,
      '&lt;a href=&quot;x&quot;&gt;&amp;amp; &apos;q&apos;&lt;/a&gt;',
      '&lt;a href=&quot;x&quot;&gt;&amp;amp; &apos;q&apos;&lt;/a&gt;',
    ],
    ['the end of a CDATA section', ']]>', ']]&gt;', ']]&gt;'],
    ['tab, newline, carriage return', 'a\tb\nc\rd', 'a&#9;b&#10;c&#13;d', 'a\tb\nc&#13;d'],
    ['non-ASCII', 'Prüfung — 日本語 😀', 'Prüfung — 日本語 😀', 'Prüfung — 日本語 😀'],
  ])('escapes %s in attributes and in text', (_label, value, attribute, text) => {
    expect(renderXml({ name: 'r', attributes: { a: value }, content: value })).toBe(
      `<?xml version="1.0" encoding="UTF-8"?>\n<r a="${attribute}">${text}</r>\n`,
    );
  });

  it('replaces characters XML 1.0 cannot carry, even as references, with U+FFFD', () => {
    const bad = 'bell \u0007 nul \u0000 vt \u000b lone \ud800 \udfff fffe \ufffe ok \ud83d\ude00';
    expect(xmlChars(bad)).toBe('bell \ufffd nul \ufffd vt \ufffd lone \ufffd \ufffd fffe \ufffd ok \ud83d\ude00');
    expect(roundTrip(bad)).toEqual({ attribute: xmlChars(bad), text: xmlChars(bad) });
  });

  it('gives a parser back exactly the strings that went in', () => {
    // A fixed pseudo-random sequence: the same 500 strings on every run, each up to 24 characters
    // drawn from markup, whitespace, entity look-alikes and characters outside the BMP.
    const pool = [
      '<',
      '>',
      '&',
      '"',
      "'",
      ']]>',
      '<![CDATA[',
      '&amp;',
      '&#9;',
      '&lt;',
      '\t',
      '\n',
      '\r',
      '\r\n',
      ' ',
      'a',
      'é',
      '日',
      '😀',
      '<!--',
      '-->',
      '<?',
      '?>',
      '=',
    ];
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 500; i++) {
      const value =
        'x' + Array.from({ length: Math.floor(next() * 24) }, () => pool[Math.floor(next() * pool.length)]).join('');
      expect(roundTrip(value), JSON.stringify(value)).toEqual({ attribute: value, text: value });
    }
  });

  it.each([
    ['an element name', { name: 'a b' }],
    ['an element name with markup', { name: 'x><script' }],
    ['an attribute name', { name: 'r', attributes: { 'on"x': '1' } }],
    ['an empty name', { name: '' }],
  ])('refuses %s that is not a plain XML name', (_label, element) => {
    expect(() => renderXml(element as XmlElement)).toThrow(/not an XML name/);
  });
});
