import { importGraph, importCycles } from './test/architecture/import-graph.ts';
const g = importGraph('.', ['src']);
const folder = (f: string) => f.split('/').slice(0, 2).join('/').replace(/\.ts$/, '');
const fg = new Map<string, string[]>();
const why = new Map<string, string[]>();
for (const [f, ts] of g) for (const t of ts) { const a = folder(f), b = folder(t); if (!fg.has(a)) fg.set(a, []); if (!fg.has(b)) fg.set(b, []); if (a !== b) { fg.get(a)!.push(b); why.set(a+'>'+b, [...(why.get(a+'>'+b) ?? []), f+'->'+t]); } }
const c = importCycles(fg);
console.log('folder cycles', c.length);
for (const x of c) { console.log('  ', x.join(' ')); for (const a of x) for (const b of x) if (why.has(a+'>'+b)) console.log('      ', why.get(a+'>'+b)!.join(', ')); }
