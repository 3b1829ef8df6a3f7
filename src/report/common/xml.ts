// A small XML 1.0 writer: an element tree in, a document out. Report text (which quotes response
// bodies) only ever enters as an attribute value or as text, and both go through escaping here,
// so no renderer puts markup around a string by concatenation and none can forget to escape.
// Output: a declaration, one element per line indented by two spaces, text inline.

export interface XmlElement {
  name: string;
  /** Written in insertion order. */
  attributes?: Readonly<Record<string, string | number>>;
  /** Text, or child elements; empty text or no children make <name/>. */
  content?: string | readonly XmlElement[];
}

// Element and attribute names come from the renderer's code, never from a report; a name that is
// not a plain XML name is a bug, and refusing it keeps the document well-formed.
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

// XML 1.0 cannot carry most control characters or lone surrogates, not even as references. A quoted
// response body may hold them, and a single one would make the whole file unparseable.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** The text with every character XML 1.0 cannot carry replaced by U+FFFD; done to all text written. */
export const xmlChars = (text: string): string => String(text).replace(NOT_XML_CHAR, '\uFFFD');

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

// A parser turns a raw CR (or CRLF) in text into LF, and tab, CR and LF in an attribute value into
// spaces; as character references they come back exactly as they were.
const escapeText = (s: string): string => xmlChars(s).replace(/[&<>"'\r]/g, (c) => ENTITIES[c] ?? '&#13;');
const escapeAttribute = (s: string): string =>
  xmlChars(s).replace(/[&<>"'\t\n\r]/g, (c) => ENTITIES[c] ?? `&#${c.charCodeAt(0)};`);

function checkedName(name: string): string {
  if (!NAME.test(name)) throw new Error(`not an XML name: ${JSON.stringify(name)}`);
  return name;
}

function startTag(e: XmlElement): string {
  const attributes = Object.entries(e.attributes ?? {}).map(
    ([k, v]) => ` ${checkedName(k)}="${escapeAttribute(String(v))}"`,
  );
  return `<${checkedName(e.name)}${attributes.join('')}`;
}

function element(e: XmlElement, depth: number): string {
  const indent = '  '.repeat(depth);
  const open = indent + startTag(e);
  const content = e.content ?? '';
  if (content.length === 0) return `${open}/>\n`;
  if (typeof content === 'string') return `${open}>${escapeText(content)}</${e.name}>\n`;
  return `${open}>\n${content.map((child) => element(child, depth + 1)).join('')}${indent}</${e.name}>\n`;
}

/** The whole document, with its declaration, ending in a newline. */
export function renderXml(root: XmlElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, 0)}`;
}
