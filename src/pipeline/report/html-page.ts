/**
 * What the report pages (`html-report.ts`, `reconcile-html.ts`) share: escaping, and the head of a
 * self-contained page (no script, no font, no request of any kind: its Content-Security-Policy
 * forbids them) with the one stylesheet.
 */

export function escapeHtml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** From `<!doctype html>` to `<body>`. */
export function pageHead(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #212121; background: #fff; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5rem 0; } th, td { text-align: left; padding: .25rem .75rem .25rem 0; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.bar { display: flex; height: 1.4rem; border-radius: 3px; overflow: hidden; margin: .5rem 0; background: #eee; }
.status { display: inline-block; padding: .1rem .5rem; border-radius: 3px; color: #fff; }
code { background: #f5f5f5; padding: 0 .2rem; } .meta { color: #616161; }
</style>
</head>
<body>`;
}
