import { escapeHtml } from './html-escape.js';
import type { Series } from './timeline-series.js';

export interface ChartSpec {
  title: string;
  yLabel: string;
  /** The x range, in seconds since the run's start. */
  seconds: number;
  series: Series[];
  /** `line` joins points, `step` holds a value until the next, `bars` draws a bar per point, `dots` a dot per point. */
  kinds: Array<'line' | 'step' | 'bars' | 'dots'>;
}

const WIDTH = 760;
const HEIGHT = 230;
const PAD = { left: 64, right: 16, top: 28, bottom: 44 };
const COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2'];

/** A chart as inline SVG (no script, no network): axes with ticks, the series, a legend. Pure. */
export function svgChart(spec: ChartSpec): string {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const yMax = niceMax(Math.max(0, ...spec.series.flatMap((s) => s.points.map((p) => p[1]))));
  const x = (s: number) => PAD.left + (Math.min(s, spec.seconds) / spec.seconds) * plotW;
  const y = (v: number) => PAD.top + plotH - (v / yMax) * plotH;
  const parts: string[] = [];
  for (const tick of ticks(yMax)) {
    parts.push(`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${PAD.left - 6}" y="${(y(tick) + 4).toFixed(1)}" text-anchor="end">${escapeHtml(formatNumber(tick))}</text>`);
  }
  for (const tick of ticks(spec.seconds)) parts.push(`<text x="${x(tick).toFixed(1)}" y="${HEIGHT - PAD.bottom + 16}" text-anchor="middle">${escapeHtml(formatSeconds(tick))}</text>`);
  parts.push(`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${PAD.top + plotH}" y2="${PAD.top + plotH}" stroke="#6b7280"/>`);
  parts.push(`<text x="${PAD.left + plotW / 2}" y="${HEIGHT - 6}" text-anchor="middle">time since the run started</text>`);
  parts.push(`<text transform="translate(14 ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(spec.yLabel)}</text>`);
  const barWidth = Math.max(1, plotW / Math.max(1, ...spec.series.map((s) => s.points.length)) - 1);
  spec.series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length]!;
    const kind = spec.kinds[i] ?? spec.kinds[0] ?? 'line';
    parts.push(seriesShape(s, kind, color, { x, y, base: PAD.top + plotH, barWidth }));
    parts.push(`<rect x="${PAD.left + 8 + i * 170}" y="8" width="10" height="10" fill="${color}"/><text x="${PAD.left + 22 + i * 170}" y="17">${escapeHtml(s.label)}</text>`);
  });
  const none = spec.series.every((s) => s.points.every((p) => p[1] === 0));
  const empty = none ? `<text x="${PAD.left + plotW / 2}" y="${PAD.top + plotH / 2}" text-anchor="middle" fill="#6b7280">none in this run</text>` : '';
  return `<figure class="chart"><figcaption>${escapeHtml(spec.title)}</figcaption><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(spec.title)}" font-family="sans-serif" font-size="11" fill="#374151">${parts.join('')}${empty}</svg></figure>`;
}

interface Scale {
  x: (s: number) => number;
  y: (v: number) => number;
  base: number;
  barWidth: number;
}

function seriesShape(s: Series, kind: ChartSpec['kinds'][number], color: string, scale: Scale): string {
  const { x, y } = scale;
  if (kind === 'bars')
    return s.points.filter((p) => p[1] > 0).map(([px, py]) => `<rect x="${(x(px) - scale.barWidth / 2).toFixed(1)}" y="${y(py).toFixed(1)}" width="${scale.barWidth.toFixed(1)}" height="${(scale.base - y(py)).toFixed(1)}" fill="${color}"/>`).join('');
  if (kind === 'dots') return s.points.map(([px, py]) => `<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="2.5" fill="${color}" fill-opacity="0.7"/>`).join('');
  const coords: string[] = [];
  s.points.forEach(([px, py], i) => {
    if (kind === 'step' && i > 0) coords.push(`${x(px).toFixed(1)},${y(s.points[i - 1]![1]).toFixed(1)}`);
    coords.push(`${x(px).toFixed(1)},${y(py).toFixed(1)}`);
  });
  return `<polyline points="${coords.join(' ')}" fill="none" stroke="${color}" stroke-width="2"${kind === 'step' ? ' stroke-dasharray="6 3"' : ''}/>`;
}

/** The smallest of 1, 2, 5 × 10^n at or above `v` (1 for an empty chart). */
function niceMax(v: number): number {
  if (v <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((m) => m * magnitude).find((m) => m >= v)!;
}

/** Five evenly spaced ticks from 0 to max. */
function ticks(max: number): number[] {
  return [0, 1, 2, 3, 4].map((i) => (max * i) / 4);
}

function formatNumber(v: number): string {
  if (v >= 1000) return `${Number((v / 1000).toPrecision(3))}k`;
  return String(Number(v.toPrecision(3)));
}

function formatSeconds(s: number): string {
  if (s < 60) return `${Number(s.toPrecision(3))}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(Math.round(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.round((s % 3600) / 60)).padStart(2, '0')}m`;
}
