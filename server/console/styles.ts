// The console's own few rules, after the site's stylesheet in the same inline <style> (the CSP
// allows that one element by its hash: app.ts). Kept here, not in the site's CSS, so
// visitors download none of it.
export const CONSOLE_CSS = `
.header-actions{align-items:center;gap:.75rem}
.header{flex-wrap:wrap;row-gap:.25rem}
.header .brand{white-space:nowrap}
.header nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem;margin-left:1.5rem}
.console-axis{margin:.35rem 0;color:var(--muted);font-size:.85rem;font-variant-numeric:tabular-nums}
.console-account{color:var(--muted);font-size:.9rem}
.console-logout{display:inline}
.console-grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));
  align-items:start;margin:0 0 2rem}
.console-figures,.console-table{width:100%;border-collapse:collapse;background:var(--surface);
  border:1px solid var(--border)}
.console-figures caption,.console-table caption{text-align:left;font-weight:700;padding:0 0 .5rem}
.console-figures th,.console-figures td,.console-table th,.console-table td{padding:.45rem .75rem;
  border-top:1px solid var(--border);text-align:left}
.console-figures th{font-weight:500;color:var(--muted)}
.console-figures td{text-align:right;font-variant-numeric:tabular-nums}
.console-chart{margin:0 0 1rem}
.console-dates{display:flex;justify-content:space-between;gap:1rem}
.console-chart>svg{display:block;width:100%;height:auto;background:var(--surface);
  border:1px solid var(--border);border-radius:var(--radius)}
.console-legend{display:flex;flex-wrap:wrap;gap:1.25rem;margin:.5rem 0 0;padding:0;list-style:none}
.console-search{display:grid;gap:.5rem;grid-template-columns:repeat(auto-fit,minmax(11rem,1fr));
  align-items:end;margin:0 0 1.5rem}
.console-search .field{margin:0}
.console-table td{overflow-wrap:anywhere}
.console-table time,.console-word{white-space:nowrap;overflow-wrap:normal}
.console-table button{overflow-wrap:normal}
.console-note{display:block;max-width:13rem;font-size:.85em;color:var(--muted)}
.console-table+p,.console-table{margin-bottom:1rem}
.console-action{display:inline-block;margin:0 .25rem .25rem 0}
.console-endpoint{margin:0 0 2.5rem}
.console-endpoint h2{font-size:1.15rem;overflow-wrap:anywhere}
.console-url{overflow-wrap:anywhere}
.console-state{padding:.4rem .75rem;border:1px solid var(--border);border-left-width:4px;
  border-radius:var(--radius);background:var(--surface)}
.console-state-on{border-left-color:var(--primary)}
.console-state-failing{border-left-color:var(--wip)}
.console-state-off{border-color:var(--danger-border);border-left-color:var(--danger)}
.console-state-off strong{color:var(--danger)}
details{margin:0 0 3rem}
summary{cursor:pointer;padding:.6rem 0}
.console-legend svg{vertical-align:-1px}
@media(max-width:520px){.console-account{display:none}}
@media(max-width:640px){.header nav{order:3;flex-basis:100%;margin:0 0 .25rem}
.console-table thead{display:none}
.console-table,.console-table tbody,.console-table tr,.console-table td{display:block}
.console-table{border:0;background:none}
.console-table caption{display:block}
.console-table tr{margin:0 0 .5rem;padding:.4rem 0;background:var(--surface);
  border:1px solid var(--border);border-radius:8px}
.console-table td{border:0;padding:.2rem .75rem}
.console-table td[data-label]{display:grid;grid-template-columns:6.5rem minmax(0,1fr);gap:.75rem}
.console-table td[data-label]::before{content:attr(data-label);color:var(--muted)}
.console-table td:empty{display:none}}
`;
