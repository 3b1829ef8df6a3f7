// report.html's look and its lockdown. The page is opened from CI artefacts with no network, so the
// stylesheet is inline (light and dark, status colours, chart tones) and the policy forbids the rest.

import { NARROW_CHECKS_CSS } from './html-narrow.js';
import { html, SafeHtml } from './safe-html.js';

// Chart tones (--c<n>) never take the pass green: a p99 bar or a line in it would read as "passed".
export const REPORT_CSS = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1f2328;--muted:#59636e;--border:#d1d9e0;--subtle:#f6f8fa;
--pass:#1a7f37;--fail:#cf222e;--warn:#9a6700;--skip:#59636e;--error:#8250df;
--c0:#0969da;--c1:#bf8700;--c2:#1b7c83;--c3:#8250df;--c4:#bc4c00;--c5:#cf222e}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--border:#3d444d;--subtle:#151b23;
--pass:#3fb950;--fail:#f85149;--warn:#d29922;--skip:#9198a1;--error:#ab7df8;
--c0:#4493f8;--c1:#e3b341;--c2:#39c5cf;--c3:#ab7df8;--c4:#f0883e;--c5:#f85149}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header,main,footer{max-width:1200px;margin:0 auto;padding:16px 24px}
h1{font-size:20px;margin:0}
h2{font-size:18px;border-bottom:1px solid var(--border);padding-bottom:4px;margin-top:32px}
h3{font-size:15px;margin:8px 0}
code{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--subtle);padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
.head{display:flex;gap:16px;align-items:center;flex-wrap:wrap}
.verdict{font-weight:700;font-size:18px;padding:8px 16px;border-radius:8px;color:var(--bg)}
.v-pass{background:var(--pass)}.v-fail{background:var(--fail)}
.muted{color:var(--muted)}
.badge{border:1px solid var(--border);border-radius:999px;padding:0 8px;font-size:12px;color:var(--muted)}
.counts{list-style:none;display:flex;gap:8px;padding:0;margin:12px 0 0;flex-wrap:wrap}
.counts li{border:1px solid var(--border);border-radius:999px;padding:2px 12px}
.st-pass{color:var(--pass)}.st-fail{color:var(--fail)}.st-warn{color:var(--warn)}.st-skip{color:var(--skip)}.st-error{color:var(--error)}
.wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:8px 0}
th,td{border-bottom:1px solid var(--border);padding:6px 8px;text-align:left;vertical-align:top}
thead th{background:var(--subtle);font-weight:600}
tbody th{font-weight:400}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.row-pass>td:first-child{border-left:4px solid var(--pass)}
tr.row-fail>td:first-child{border-left:4px solid var(--fail)}
tr.row-warn>td:first-child{border-left:4px solid var(--warn)}
tr.row-skip>td:first-child{border-left:4px solid var(--skip)}
tr.row-error>td:first-child{border-left:4px solid var(--error)}
.status{font-weight:600;white-space:nowrap}
.title{color:var(--muted)}
.msg{white-space:pre-wrap;overflow-wrap:anywhere}
summary{cursor:pointer;color:var(--muted)}
ol.evidence{margin:4px 0;padding-left:20px}
.thresholds{list-style:none;margin:0;padding:0}
/* On a phone the load table scrolls sideways in its box; broken inside names and thresholds it grew a screen tall per row.
   A threshold still wraps at its spaces and tags, under its text, not its mark: on one line it ran out of the box at 1280 px. */
table.load code{overflow-wrap:normal;white-space:nowrap}
table.load .thresholds li{white-space:nowrap;padding-left:1.3em;text-indent:-1.3em}table.load .thresholds code{white-space:normal}
.ok{color:var(--pass)}.bad{color:var(--fail)}
.callout{border:1px solid var(--border);border-left:4px solid var(--c0);border-radius:6px;padding:4px 16px;background:var(--subtle)}
.untested{border-left-color:var(--fail)}
.lead{border-left-color:var(--fail);margin-bottom:16px}
.lead-items{list-style:none;padding:0;margin:8px 0}
.lead-items li{margin:4px 0;overflow-wrap:anywhere}
.lead .todo{color:var(--muted)}
svg.icon{width:1em;height:1em;vertical-align:-.125em;flex:none}
figure{margin:16px 0}
figcaption{color:var(--muted)}
svg.chart{max-width:100%;height:auto;display:block}
.chart text{fill:var(--muted);font:11px system-ui,sans-serif}
.chart .grid line{stroke:var(--border)}
.chart line.axis{stroke:var(--muted)}
.chart .line{stroke-width:2;stroke-linejoin:round}
.chart .band rect{fill:var(--subtle)}.chart .band-1 rect{fill:var(--border);opacity:.4}
.chart .reference line{stroke-width:1.5}.chart .reference text{fill:currentColor;font-weight:600}
.c0{color:var(--c0)}.c1{color:var(--c1)}.c2{color:var(--c2)}.c3{color:var(--c3)}.c4{color:var(--c4)}.c5{color:var(--c5)}
.legend{list-style:none;display:flex;gap:16px;padding:0;margin:4px 0;flex-wrap:wrap}
figcaption .phases{margin:4px 0}
.swatch{display:inline-block;width:12px;height:12px;border-radius:2px;background:currentColor;margin-right:6px;vertical-align:-1px}
footer{color:var(--muted);font-size:12px}
${NARROW_CHECKS_CSS}`;

// The report never needs to load anything; this makes that a browser-enforced fact.
export const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

/** The page's <head>: the CSP that keeps a quoted body inert, and the styles. */
export function pageHead(title: string, css: string): SafeHtml {
  return html`<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${new SafeHtml(css)}</style>
</head>`;
}
