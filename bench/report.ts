import { mkdir, writeFile } from 'node:fs/promises';
import { formatSummary, type Summary } from './stats.ts';

/** Whether a benchmark's target was reached. `reported`: there is no pass/fail target. */
export type Verdict = 'met' | 'missed' | 'reported' | 'not measured';

/** One measured figure: a summary over trials, a count, or a text. */
export interface Figure {
  label: string;
  value: Summary | number | string;
  /** `ratio`, `bytes`, `count`, `ms`, `deltas/s`, … */
  unit: string;
  note?: string;
}

/** What one benchmark reports. */
export interface BenchmarkResult {
  /** The issue's row number (1–10). */
  id: number;
  key: string;
  title: string;
  baseline: string;
  target: string;
  verdict: Verdict;
  /** The figure(s) the target is judged on, short, for the summary table. */
  headline: string;
  figures: Figure[];
  /** How it was measured: trials, sizes, order. */
  method: string;
  notes: string[];
  durationMs: number;
}

/** Where and when the run happened. */
export interface RunEnvironment {
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  node: string;
  platform: string;
  cpus: { count: number; model: string };
  memoryGiB: number;
  /** 1-minute load average at the start and the end (other processes included). */
  loadAverage: { start: number[]; end: number[] };
  chromium?: string;
  only?: string[];
}

export interface BenchReport {
  environment: RunEnvironment;
  results: BenchmarkResult[];
}

function isSummary(value: Figure['value']): value is Summary {
  return typeof value === 'object' && value !== null && 'median' in value;
}

/** Renders a figure value for Markdown. */
export function formatFigure(figure: Figure): string {
  const { value, unit } = figure;
  const digits = unit === 'ratio' || unit === '' ? 3 : unit === 'bytes' ? 0 : 2;
  const withUnit = (text: string) => (unit === '' ? text : `${text} ${unit}`);
  if (isSummary(value)) {
    const integral = [value.median, value.p25, value.p75, value.min, value.max].every((number) =>
      Number.isInteger(number),
    );
    return withUnit(formatSummary(value, integral ? 0 : digits));
  }
  if (typeof value === 'number') {
    return withUnit(
      Number.isInteger(value) ? value.toLocaleString('en-US') : value.toFixed(digits),
    );
  }
  return value;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The summary table (also pasted into README.md). */
export function summaryTable(results: readonly BenchmarkResult[]): string {
  const lines = [
    '| # | what | baseline | target | measured (median, spread) | verdict |',
    '|---|---|---|---|---|---|',
  ];
  for (const result of [...results].sort((a, b) => a.id - b.id)) {
    lines.push(
      `| ${result.id} | ${escapeCell(result.title)} | ${escapeCell(result.baseline)} | ${escapeCell(result.target)} | ${escapeCell(result.headline)} | **${result.verdict}** |`,
    );
  }
  return lines.join('\n');
}

/** The whole Markdown report: environment, summary table, then every figure per benchmark. */
export function renderMarkdown(report: BenchReport): string {
  const { environment: environment, results } = report;
  const lines: string[] = [
    '# Switchboard benchmarks',
    '',
    `Measured ${environment.startedAt} → ${environment.finishedAt} ` +
      `(${(environment.durationMs / 1000).toFixed(0)} s) on ${environment.platform}, ` +
      `${environment.cpus.count} × ${environment.cpus.model}, ${environment.memoryGiB.toFixed(0)} GiB, ` +
      `Node ${environment.node}${environment.chromium === undefined ? '' : `, Chromium ${environment.chromium}`}. ` +
      `1-minute load average ${environment.loadAverage.start[0]?.toFixed(1)} at the start and ` +
      `${environment.loadAverage.end[0]?.toFixed(1)} at the end (other processes on the machine included).`,
    '',
    'Every timing is a ratio of Switchboard to its baseline measured in the same run, A/B trials ' +
      'interleaved (ABBA…); "median (p25–p75, min–max, n)" summarises the per-trial ratios. ' +
      'Counts and bytes are exact.',
    '',
  ];
  if (environment.only !== undefined) {
    lines.push(`Partial run: only ${environment.only.join(', ')}.`, '');
  }
  lines.push(summaryTable(results), '');
  for (const result of [...results].sort((a, b) => a.id - b.id)) {
    lines.push(`## ${result.id}. ${result.title} — ${result.verdict}`, '');
    lines.push(`Baseline: ${result.baseline}. Target: ${result.target}.`, '');
    lines.push(`Method: ${result.method}`, '');
    for (const figure of result.figures) {
      lines.push(
        `- ${figure.label}: ${formatFigure(figure)}${figure.note === undefined ? '' : ` — ${figure.note}`}`,
      );
    }
    if (result.notes.length > 0) {
      lines.push('');
      for (const note of result.notes) lines.push(`> ${note}`);
    }
    lines.push('', `(${(result.durationMs / 1000).toFixed(1)} s)`, '');
  }
  return lines.join('\n');
}

/** Writes `latest.json` and `latest.md` into `directory`. */
export async function writeReport(directory: URL, report: BenchReport): Promise<void> {
  await mkdir(directory, { recursive: true });
  await writeFile(new URL('latest.json', directory), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(new URL('latest.md', directory), renderMarkdown(report));
}
