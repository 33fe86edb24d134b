/**
 * The review page's HTML frame (issue 32): escaping, the layout every page shares (navigation, banners for a
 * running job and a signed period), and small pieces (tables, forms). Server-rendered, no inline script or style,
 * so the Content-Security-Policy can forbid both; the one script is a bundled file (assets.ts).
 */
import { escapeHtml } from '../../core/text-safety.js';

/** Text made safe for HTML content and attribute values (core's one escaper; null and undefined are empty). */
export function esc(value: unknown): string {
  return value === null || value === undefined ? '' : escapeHtml(String(value));
}

/** What every page knows besides its own data. */
export interface PageContext {
  period: string | null;
  /** The CSRF token every form posts back. */
  csrf: string;
  /** Who acts on this page, as the commands would name them. */
  actor: string;
  /** Set when another process holds the database: the page then shows the last published snapshot. */
  jobRunning: boolean;
  /** Which file the data was read from and when it was published. */
  source: string;
  /** Set when the period is signed off: why nothing can be changed here. */
  readOnly: string | null;
}

/** A URL with query parameters, empty ones left out. */
export function href(pathname: string, query: Record<string, string | number | null | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== null && value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `${pathname}?${text}` : pathname;
}

/** A page; `jsonTwin` is the address of the same data as JSON (none for an act's outcome). */
export function layout(title: string, context: PageContext, body: string, jsonTwin?: string): string {
  const period = context.period;
  const nav = [
    ['Overview', href('/overview', { period })],
    ['Findings', href('/findings', { period })],
    ['Suggested matches', href('/matches', { period })],
    ['Actions', href('/actions', { period })],
  ]
    .map(([label, url]) => `<li><a href="${esc(url)}">${esc(label)}</a></li>`)
    .join('');
  const banners = [
    context.jobRunning
      ? '<p class="banner warn" role="status">A job is running on the database: this page shows the last published ' +
        'snapshot, and changes wait until the job ends.</p>'
      : '',
    context.readOnly ? `<p class="banner info" role="status">Read-only: ${esc(context.readOnly)}</p>` : '',
  ].join('');
  const twin = jsonTwin ? ` · <a href="${esc(jsonTwin)}">this page as JSON</a>` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} — pinrecon ${esc(period ?? '')}</title>
<link rel="stylesheet" href="/assets/review.css">
<script src="/assets/review.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<p class="brand">pinrecon review · <strong>${esc(period ?? 'no period')}</strong>
 · acting as ${esc(context.actor)}</p>
<nav aria-label="Pages"><ul>${nav}</ul></nav>
</header>
<main id="main">
${banners}
<h1>${esc(title)}</h1>
${body}
</main>
<footer><p>Data: ${esc(context.source)}${twin}</p></footer>
</body>
</html>`;
}

/** A table of rows; cells are HTML already escaped by the caller. */
export function table(
  caption: string,
  headers: string[],
  rows: string[][],
  options: { numeric?: number[] } = {},
): string {
  if (rows.length === 0) return `<p class="empty">${esc(caption)}: none.</p>`;
  const numeric = new Set(options.numeric ?? []);
  const head = headers.map((h, i) => `<th scope="col"${numeric.has(i) ? ' class="num"' : ''}>${esc(h)}</th>`).join('');
  const body = rows
    .map(
      (row) => `<tr>${row.map((cell, i) => `<td${numeric.has(i) ? ' class="num"' : ''}>${cell}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table><caption>${esc(caption)}</caption><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** Label: value lines. */
export function facts(pairs: [string, unknown][]): string {
  return `<dl class="facts">${pairs.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v ?? '—')}</dd>`).join('')}</dl>`;
}

/** A select with a visible label. */
export function select(name: string, label: string, options: readonly string[], chosen: string | undefined): string {
  const items = ['', ...options]
    .map((o) => `<option value="${esc(o)}"${o === (chosen ?? '') ? ' selected' : ''}>${esc(o || 'any')}</option>`)
    .join('');
  const id = `f-${esc(name)}`;
  const control = `<select name="${esc(name)}" id="${id}">${items}</select>`;
  return `<span class="field"><label for="${id}">${esc(label)}</label>${control}</span>`;
}

export function input(name: string, label: string, value: string | undefined, type = 'text'): string {
  const id = `f-${esc(name)}`;
  const field = `<input type="${type}" name="${esc(name)}" id="${id}" value="${esc(value ?? '')}">`;
  return `<span class="field"><label for="${id}">${esc(label)}</label>${field}</span>`;
}

/** The hidden field every form carries. */
export function csrfField(context: PageContext): string {
  return `<input type="hidden" name="csrf" value="${esc(context.csrf)}">`;
}
