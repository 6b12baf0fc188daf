import { formatRatio } from './stats.js';

/** One printed table: the first row is the header. */
export interface Table {
  title: string;
  columns: string[];
  rows: string[][];
}

/** A bar from issue 6: `value` must be at least (or, with `atMost`, at most) `bar`. */
export interface BarCheck {
  name: string;
  value: number;
  bar: number;
  atMost?: boolean;
  /** How value and bar print: a ratio ("0.97x"), or a plain number with a unit. */
  unit: 'x' | string;
  pass: boolean;
}

export interface SuiteResult {
  id: string;
  title: string;
  tables: Table[];
  bars: BarCheck[];
  notes: string[];
  seconds: number;
}

export function bar(name: string, value: number, threshold: number, unit = 'x', atMost = false): BarCheck {
  const pass = Number.isFinite(value) && (atMost ? value <= threshold : value >= threshold);
  return { name, value, bar: threshold, unit, atMost, pass };
}

function show(value: number, unit: string): string {
  if (unit === 'x') return formatRatio(value);
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)} ${unit}`;
}

export function barRow(check: BarCheck): string[] {
  return [
    check.name,
    show(check.value, check.unit),
    `${check.atMost ? '<=' : '>='} ${show(check.bar, check.unit)}`,
    check.pass ? 'PASS' : 'FAIL',
  ];
}

export function barsTable(bars: readonly BarCheck[]): Table {
  return { title: 'Bars', columns: ['bar', 'measured', 'needed', 'result'], rows: bars.map(barRow) };
}

export function renderText(table: Table): string {
  const all = [table.columns, ...table.rows];
  const widths = table.columns.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [`  ${table.title}`, `  ${line(table.columns)}`, `  ${widths.map((w) => '-'.repeat(w)).join('  ')}`]
    .concat(table.rows.map((r) => `  ${line(r)}`))
    .join('\n');
}

export function renderMarkdown(table: Table): string {
  const head = `| ${table.columns.join(' | ')} |`;
  const rule = `|${table.columns.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`;
  const rows = table.rows.map((r) => `| ${r.join(' | ')} |`);
  return [`**${table.title}**`, '', head, rule, ...rows].join('\n');
}
