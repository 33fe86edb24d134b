/**
 * The review page's two static files, bundled in the package as text (issue 32): no CDN, nothing fetched at run
 * time, and no inline script or style, so the Content-Security-Policy allows only these. The stylesheet reads at
 * 1280×800, keeps contrast at WCAG AA (text #1a1a1a on white, links #0b4f9c) and prints without navigation or
 * forms. The script only adds a convenience: select-all for bulk decisions (the page works without it).
 */

export const reviewCss = `
:root { color-scheme: light; font-family: system-ui, sans-serif; font-size: 15px; color: #1a1a1a; background: #fff; }
body { margin: 0 auto; max-width: 1240px; padding: 0 16px 24px; }
a { color: #0b4f9c; }
a:focus, button:focus, input:focus, select:focus, textarea:focus { outline: 3px solid #f5a623; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 16px; top: 8px; background: #fff; padding: 4px 8px; }
header { display: flex; justify-content: space-between; align-items: baseline; border-bottom: 2px solid #1a1a1a; }
header ul { list-style: none; display: flex; gap: 16px; margin: 0; padding: 0; }
h1 { font-size: 1.5rem; margin: 16px 0 8px; }
h2 { font-size: 1.15rem; margin: 20px 0 6px; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 16px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border-bottom: 1px solid #c8c8c8; padding: 4px 6px; text-align: left; vertical-align: top; }
td { overflow-wrap: anywhere; }
th { background: #eef1f5; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.banner { padding: 8px 12px; border-radius: 4px; font-weight: 600; }
.warn { background: #fff4d6; border: 1px solid #8a6100; }
.info { background: #e6f0fb; border: 1px solid #0b4f9c; }
.refused { background: #fde8e8; border: 1px solid #a11a1a; padding: 8px 12px; }
.ok { background: #e7f6ea; border: 1px solid #1d6b2f; padding: 8px 12px; }
.verdict { font-size: 1.2rem; font-weight: 700; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
form.filters, fieldset { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: flex-end; }
fieldset { border: 1px solid #c8c8c8; margin: 8px 0; }
label, .field { display: inline-flex; flex-direction: column; font-size: 0.9rem; }
input, select, button, textarea { font: inherit; padding: 3px 6px; }
button { background: #0b4f9c; color: #fff; border: 1px solid #0b4f9c; border-radius: 3px; cursor: pointer; }
button:disabled { background: #767676; border-color: #767676; }
.pager { display: flex; gap: 16px; }
.two { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 24px; }
footer { margin-top: 24px; border-top: 1px solid #c8c8c8; font-size: 0.85rem; }
@media print {
  header nav, form, .skip, footer a, input[type=checkbox], button { display: none !important; }
  body { max-width: none; font-size: 10pt; }
  a { color: inherit; text-decoration: none; }
  table { page-break-inside: auto; } tr { page-break-inside: avoid; }
  .banner { border: 1px solid #000; background: none; }
}
`;

export const reviewJs = `'use strict';
document.addEventListener('DOMContentLoaded', () => {
  for (const all of document.querySelectorAll('input[data-select-all]')) {
    all.addEventListener('change', () => {
      const boxes = document.querySelectorAll('input[name="' + all.dataset.selectAll + '"]');
      for (const box of boxes) box.checked = all.checked;
    });
  }
});
`;
