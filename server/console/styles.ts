// The console's own few rules, after the site's stylesheet in the same inline <style> (the CSP
// allows that one element by its hash: console/door.ts). Kept here, not in the site's CSS, so
// visitors download none of it.
export const CONSOLE_CSS = `
.header-actions{align-items:center;gap:.75rem}
.header nav{display:flex;gap:1rem;margin-left:1.5rem}
.console-account{color:var(--muted);font-size:.9rem}
.console-logout{display:inline}
.console-grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));align-items:start;margin:0 0 2rem}
.console-figures,.console-table{width:100%;border-collapse:collapse;background:var(--surface);border:1px solid var(--border)}
.console-figures caption,.console-table caption{text-align:left;font-weight:700;padding:0 0 .5rem}
.console-figures th,.console-figures td,.console-table th,.console-table td{padding:.45rem .75rem;border-top:1px solid var(--border);text-align:left}
.console-figures th{font-weight:500;color:var(--muted)}
.console-figures td{text-align:right;font-variant-numeric:tabular-nums}
.console-chart{margin:0 0 1rem}
.console-chart>svg{display:block;width:100%;height:auto;background:var(--surface);border:1px solid var(--border);border-radius:var(--radius)}
.console-legend{display:flex;flex-wrap:wrap;gap:1.25rem;margin:.5rem 0 0;padding:0;list-style:none}
.console-search{display:grid;gap:.5rem;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));align-items:end;margin:0 0 1.5rem}
.console-search .field{margin:0}
.console-scroll{overflow-x:auto;margin:0 0 1rem}
.console-action{display:inline-block;margin:0 .25rem .25rem 0}
details{margin:0 0 3rem}
summary{cursor:pointer;padding:.6rem 0}
.console-legend svg{vertical-align:-1px}
@media(max-width:520px){.console-account{display:none}}
`;
