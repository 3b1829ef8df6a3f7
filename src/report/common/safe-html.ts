// Every string in a report is untrusted: a message may quote a response body or a proxy's error
// page. So HTML and SVG are only ever built through the `html` tag below, which escapes each
// interpolation unless it is SafeHtml produced by this tag; forgetting to escape cannot happen.

export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlPart = SafeHtml | string | number | boolean | null | undefined | readonly HtmlPart[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for element content and for quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function partToString(part: unknown): string {
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return part.map(partToString).join('');
  // `cond && html\`…\`` is the idiom for optional fragments; false renders nothing.
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...parts: HtmlPart[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < parts.length; i++) out += partToString(parts[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

export function joinHtml(parts: readonly SafeHtml[], separator = ''): SafeHtml {
  return new SafeHtml(parts.map((p) => p.value).join(separator));
}
