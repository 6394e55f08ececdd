import { formatDuration, type RunReport, type StageCounts } from '../report.js';
import { DIFFERENCE_KINDS } from '../verify/types.js';
import { exactVerdict } from '../verify/describe.js';
import { escapeHtml as h } from './html-escape.js';
import type { RejectGroups } from './reject-groups.js';
import { svgChart } from './svg-chart.js';
import type { TimelineSeries } from './timeline-series.js';

export interface PageInput {
  report: RunReport;
  rejects: RejectGroups;
  series: TimelineSeries;
}

const COUNT_COLUMNS = ['read', 'imported', 'updated', 'duplicates', 'rejected', 'refused', 'skipped', 'changed', 'pending'] as const;
/** Breakdowns, shown in brackets as in the terminal report. */
const SUBSETS = new Set(['updated', 'refused', 'changed']);

/** The whole report.html: one self-contained page (inline style and SVG, no script, no network). Pure. */
export function renderReportPage(input: PageInput): string {
  const { report } = input;
  const title = `chatport run ${report.runId} (${report.pipeline}): ${report.status}`;
  const body = [header(report), countsSection(report), verificationSection(report.verification), rejectsSection(input.rejects, report), chartsSection(input.series), filesSection(report)];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${h(title)}</title><style>${STYLE}</style></head>
<body>${body.join('\n')}</body></html>
`;
}

function header(r: RunReport): string {
  const facts = [
    ['pipeline', r.pipeline], ['run', r.runId], ['attempt', String(r.attempt)], ['started', r.startedAt], ['ended', r.endedAt], ['duration', formatDuration(r.durationMs)],
    ...(r.apiVersion ? [['server API version', r.apiVersion]] : []),
  ];
  const error = r.error ? `<p class="error" id="error">stopped by <b>${h(r.error.code)}</b>: ${h(r.error.message)}</p>` : '';
  const warnings = (r.warnings ?? []).map((w) => `<li>${h(w.message)} <span class="muted">(${h(w.path)})</span></li>`).join('');
  return `<header><h1>${h(r.pipeline)} <span class="status status-${h(r.status)}" id="status">${h(r.status)}</span></h1>
<dl class="facts">${facts.map(([k, v]) => `<dt>${h(k)}</dt><dd>${h(v)}</dd>`).join('')}</dl>${error}${warnings ? `<ul class="warnings">${warnings}</ul>` : ''}</header>`;
}

function countsSection(r: RunReport): string {
  const head = `<tr><th>stage</th>${COUNT_COLUMNS.map((c) => `<th>${SUBSETS.has(c) ? `(${c})` : c}</th>`).join('')}<th>chunks</th><th>jobs finished / sent</th><th>time</th></tr>`;
  const rows = Object.entries(r.stages).map(([stage, c]) => countRow(stage, c, `${c.chunks}`, `${c.jobs.finished} / ${c.jobs.submitted}${c.jobs.failed ? ` (${c.jobs.failed} FAILED)` : ''}`, formatDuration(c.durationMs)));
  rows.push(countRow('total', r.totals, '', '', formatDuration(r.durationMs)));
  const equations = [...Object.entries(r.stages).map(([stage, c]) => equation(stage, c)), equation('total', r.totals)].join('');
  const notes = Object.entries(r.stages)
    .filter(([, c]) => c.rateLimit)
    .map(([stage, c]) => `<li>${h(stage)}: the platform rate-limited requests ${c.rateLimit!.answers} times${c.rateLimit!.uploadsPerSecond ? `; uploads paced to ${c.rateLimit!.uploadsPerSecond} per second` : ''}</li>`)
    .join('');
  const verdict = r.totals.balanced
    ? `<p class="ok" id="accounting">Every record accounted for: read = imported + duplicates + rejected + skipped${r.totals.pending ? ' + pending' : ''}.</p>`
    : `<p class="error" id="accounting">ACCOUNTING MISMATCH: read ≠ imported + duplicates + rejected + skipped + pending.</p>`;
  return `<section><h2>Records</h2><table class="counts" id="counts">${head}${rows.join('')}</table>${verdict}<ul class="equations">${equations}</ul>${notes ? `<ul>${notes}</ul>` : ''}
<p class="muted">Bracketed columns are parts of the one before them: updated ⊆ imported, refused ⊆ rejected, changed ⊆ skipped (held with other content, not applied).</p></section>`;
}

type Counted = Pick<StageCounts, (typeof COUNT_COLUMNS)[number]>;

function countRow(stage: string, c: Counted, chunks: string, jobs: string, time: string): string {
  const cells = COUNT_COLUMNS.map((k) => `<td data-count="${k}">${c[k].toLocaleString('en-US')}</td>`).join('');
  return `<tr data-stage="${h(stage)}"${stage === 'total' ? ' class="total"' : ''}><th>${h(stage)}</th>${cells}<td>${h(chunks)}</td><td>${h(jobs)}</td><td>${h(time)}</td></tr>`;
}

function equation(stage: string, c: Counted): string {
  const sum = c.imported + c.duplicates + c.rejected + c.skipped + c.pending;
  const terms = [`imported ${c.imported}`, `duplicates ${c.duplicates}`, `rejected ${c.rejected}`, `skipped ${c.skipped}`, ...(c.pending ? [`pending ${c.pending}`] : [])];
  const holds = sum === c.read;
  return `<li class="${holds ? 'ok' : 'error'}">${h(stage)}: read ${c.read} ${holds ? '=' : '≠'} ${terms.join(' + ')} ${holds ? '✓' : '✗'}</li>`;
}

function verificationSection(v: RunReport['verification']): string {
  if (!v) return `<section id="verification"><h2>Verification</h2><p class="muted">Not verified in this run (<code>chatport verify</code> checks what the platform holds against the source).</p></section>`;
  if (v.status === 'not-done') return `<section id="verification"><h2>Verification</h2><p class="error">Not done (the import itself is complete): <b>${h(v.error.code)}</b>: ${h(v.error.message)}</p></section>`;
  const exact = v.status === 'exact' ? exactVerdict(v) : undefined;
  const verdict = exact ? `<p class="ok">Exact${h(exact.headline.slice('exact'.length))}${exact.unread ? h(` — ${exact.unread}`) : ''}.</p>` : `<p class="error">Differences found.</p>`;
  const head = `<tr><th>stage</th><th>expected</th><th>verified</th>${DIFFERENCE_KINDS.map((k) => `<th>${k}</th>`).join('')}</tr>`;
  const rows = Object.entries(v.stages)
    .map(([stage, s]) => `<tr data-stage="${h(stage)}"><th>${h(stage)}</th><td>${s.expected}</td><td>${s.verified}</td>${DIFFERENCE_KINDS.map((k) => `<td>${s.differences[k]}</td>`).join('')}</tr>`)
    .join('');
  const checked = v.contentChecked > 0 ? `<p>${v.contentChecked} message(s) compared in full (body, properties).</p>` : '';
  const files = v.files ? `<p class="muted">Differences: <code>${h(v.files.differences)}</code></p>` : '';
  return `<section id="verification"><h2>Verification</h2>${verdict}<table>${head}${rows}</table>${checked}${files}</section>`;
}

function rejectsSection(g: RejectGroups, r: RunReport): string {
  if (g.records === 0) return `<section id="rejects"><h2>Rejects</h2><p class="ok">No record was rejected.</p></section>`;
  const groups = g.groups
    .map((group) => {
      const examples = group.examples.map((e) => `<li><code>${h(e.line !== undefined ? `${e.file}:${e.line}` : `${e.file} record ${e.index}`)}</code> found ${h(e.found)} — ${h(e.message)}</li>`).join('');
      return `<details open class="reject-group"><summary><b class="reject-count">${group.count}</b> ${h(group.stage)} · ${h(group.kind)} · <code>${h(group.field || '(the record)')}</code>: expected ${h(group.expected)}</summary><ol>${examples}</ol>${group.count > group.examples.length ? `<p class="muted">${group.count - group.examples.length} more</p>` : ''}</details>`;
    })
    .join('');
  const more = g.more.groups > 0 ? `<p class="muted">${g.more.groups} smaller group(s) holding ${g.more.count} more reason(s) are not shown.</p>` : '';
  return `<section id="rejects"><h2>Rejects by reason</h2><p>${g.records} rejected record(s), grouped by stage, field and what was expected (a record with several reasons is in each of its groups). All of them, with the records: <code>${h(r.rejectsFile ?? '')}</code></p>${groups}${more}</section>`;
}

function chartsSection(s: TimelineSeries): string {
  const charts = [
    svgChart({ title: 'Throughput: records imported per second', yLabel: 'records/s', seconds: s.seconds, series: s.throughput, kinds: ['line'] }),
    svgChart({ title: 'Upload concurrency: import jobs in flight, and the limit after 429s', yLabel: 'jobs', seconds: s.seconds, series: s.inFlight, kinds: ['line', 'step'] }),
    svgChart({ title: 'Rate limiting: 429 answers from the platform', yLabel: '429s', seconds: s.seconds, series: s.rateLimited, kinds: ['bars'] }),
    svgChart({ title: 'Job durations: from upload to FINISHED or FAILED', yLabel: 'seconds', seconds: s.seconds, series: s.durations, kinds: ['dots'] }),
  ];
  return `<section id="charts"><h2>Over time</h2><div class="charts">${charts.join('')}</div></section>`;
}

function filesSection(r: RunReport): string {
  const files = [['run folder', r.runDir], ['report (JSON)', `${r.runDir}/report.json`], ...(r.rejectsFile ? [['rejects', r.rejectsFile]] : []), ...(r.skippedDir ? [['skipped records', r.skippedDir]] : [])];
  return `<footer><h2>Files</h2><dl class="facts">${files.map(([k, v]) => `<dt>${h(k)}</dt><dd><code>${h(v)}</code></dd>`).join('')}</dl></footer>`;
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1200px;padding:0 16px;color:#111827;background:#fff}
h1{font-size:22px;margin:0 0 8px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
.status{font-size:13px;padding:2px 8px;border-radius:10px;vertical-align:middle;background:#e5e7eb}
.status-succeeded{background:#dcfce7;color:#166534}.status-completed-with-rejects{background:#fef9c3;color:#854d0e}
.status-failed,.status-interrupted{background:#fee2e2;color:#991b1b}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0;font-size:14px}.facts dt{color:#6b7280}.facts dd{margin:0}
table{border-collapse:collapse;font-size:14px;font-variant-numeric:tabular-nums}th,td{padding:4px 10px;border-bottom:1px solid #e5e7eb;text-align:right}
tr th:first-child{text-align:left}tr.total{font-weight:600;border-top:2px solid #9ca3af}
.ok{color:#166534}.error{color:#991b1b;font-weight:600}.muted{color:#6b7280;font-size:13px}
.equations{font-size:13px;font-family:ui-monospace,monospace;padding-left:18px}
.reject-group{margin:6px 0;font-size:14px}.reject-group ol{font-size:13px;margin:4px 0}.reject-count{display:inline-block;min-width:3em}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(560px,1fr));gap:12px}
figure.chart{margin:0;border:1px solid #e5e7eb;border-radius:6px;padding:8px}figure.chart svg{width:100%;height:auto}
figcaption{font-weight:600;font-size:14px;margin-bottom:4px}code{font-size:12px;word-break:break-all}
`;
