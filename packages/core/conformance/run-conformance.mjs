// Runs the official MCP client conformance suite (`@modelcontextprotocol/conformance`) against
// our MCP layer (`client.ts` in this folder) and checks the result against a baseline.
//
//   node packages/core/conformance/run-conformance.mjs [--revision <rev>] [--scenario <name>]
//                                                      [--verbose] [--keep] [--tsx]
//
//   --revision   run one requirement set only (2025-11-25 or 2026-07-28); default both
//   --scenario   run one scenario only (with --revision; default revision 2026-07-28)
//   --verbose    print the harness output
//   --keep       keep the harness result folders (checks.json, stdout.txt, stderr.txt per
//                scenario) and print where they are
//   --tsx        run `client.ts` through tsx instead of the esbuild bundle (see below)
//
// What it does:
// 1. Both requirement sets, 2025-11-25 and 2026-07-28 (`--requirements <rev>`, including what a
//    set runs without scoring), are gates, one after the other. A scenario passes when it has
//    at least one SUCCESS check and no FAILURE or WARNING check (the harness lets a scenario
//    without any check pass; we do not, as nothing was verified). Exit 1 when a scenario that
//    `expected-failures.json` does not list for its set fails, or when a listed one passes (then
//    remove the entry: the baseline stays honest). Exit 2 when the harness could not run.
// 2. `results.md` in this folder gets the compatibility table of both runs (only when both
//    whole sets ran).
//
// Load: the harness starts every scenario of a set at once (25 for 2025-11-25, 39 for
// 2026-07-28). Bundled, a client costs ~0.5 s of CPU; through tsx ~1.3 s more (tsx's own
// process plus compiling the package), which on a 2-core machine makes scenarios time out. So
// `client.ts` is bundled once with esbuild (what tsx uses underneath) and run with plain `node`;
// both runs then take ~55 s of CPU in all (clients ~33 s, harness ~15 s).
// On a busy machine a client can still stall long enough to hit a server's keep-alive timeout
// (ECONNRESET) or the scenario timeout. So a scenario that fails unexpectedly, or whose client
// failed on the transport, is run once more on its own, and the rerun decides; the table marks it.
//
// Environment: the harness needs Node >= 22 (it imports `fs.globSync`), so it runs from npx with
// the npm package `node@22`; the client runs on this Node (the harness's PATH would hand it
// Node 22 as well). The harness's mock servers `listen(0)` on every interface;
// `loopback-preload.mjs` moves them to 127.0.0.1.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** Exact versions: a new harness release may add scenarios, which must be a deliberate change. */
const CONFORMANCE_PACKAGE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const NODE_PACKAGE = 'node@22.23.3';
/** The requirement sets, in run order; each one is a gate with its own baseline section. */
const REVISIONS = ['2025-11-25', '2026-07-28'];
/** Per-scenario client timeout passed to the harness, in ms (its default is 30 000). */
const SCENARIO_TIMEOUT_MS = 60_000;
/** A harness process is killed after this long, in ms. */
const HARNESS_TIMEOUT_MS = 180_000;
/** What in a client's stderr means it failed on the transport, not on a protocol step. */
const TRANSPORT_FAILURE = /\[(connection_refused|connection_lost|timeout)\]|ECONNRESET|EPIPE/;

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const baselinePath = path.join(here, 'expected-failures.json');
const resultsPath = path.join(here, 'results.md');
const loopbackPath = path.join(here, 'loopback-preload.mjs');
const tsxPath = path.join(root, 'node_modules/.bin/tsx');
const clientPath = path.join(here, 'client.ts');

const argv = process.argv.slice(2);
const verbose = argv.includes('--verbose');
const keep = argv.includes('--keep');
const viaTsx = argv.includes('--tsx');
const onlyScenario = optionValue('--scenario');
const onlyRevision =
  optionValue('--revision') ?? (onlyScenario === undefined ? undefined : REVISIONS.at(-1));
if (onlyRevision !== undefined && !REVISIONS.includes(onlyRevision)) {
  console.error(`conformance: --revision must be one of ${REVISIONS.join(', ')}.`);
  process.exit(2);
}

/** The value after `flag` in the arguments, if given. */
function optionValue(flag) {
  const index = argv.indexOf(flag);
  return index === -1 ? undefined : argv[index + 1];
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(
      `conformance: ${error instanceof Error ? (error.stack ?? error.message) : error}`,
    );
    process.exit(2);
  },
);

async function main() {
  const started = performance.now();
  if (viaTsx && !existsSync(tsxPath)) throw new Error(`${tsxPath} is missing; run npm install.`);
  const baseline = await readBaseline();
  const outputRoot = await mkdtemp(path.join(tmpdir(), 'switchboard-conformance-'));
  try {
    const command = await clientCommand(outputRoot);
    const runs = [];
    for (const revision of onlyRevision === undefined ? REVISIONS : [onlyRevision]) {
      const entries = baseline[revision] ?? {};
      const result = await runRevision(command, revision, outputRoot, (scenario) => {
        const [whole] = baselineEntriesFor(entries, scenario.name);
        return whole === undefined || hasTransportFailure(scenario);
      });
      if (result.error !== undefined) {
        console.error(result.output);
        console.error(`conformance: ${revision}: ${result.error}`);
        return 2;
      }
      const verdict = compareWithBaseline(result.scenarios, entries, onlyScenario === undefined);
      printRevision(result, verdict);
      runs.push({ result, verdict });
    }

    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (runs.length === REVISIONS.length && onlyScenario === undefined) {
      await writeFile(resultsPath, renderResults(runs));
      console.log(`\nWrote ${path.relative(root, resultsPath)} (${seconds} s in all).`);
    } else {
      console.log(`\n${seconds} s in all (results.md not written: it needs both whole sets).`);
    }
    const problems = runs.flatMap(({ result, verdict }) =>
      verdict.problems.map((problem) => `${result.revision}: ${problem}`),
    );
    for (const problem of problems) console.error(`conformance: ${problem}`);
    return problems.length === 0 ? 0 : 1;
  } finally {
    if (keep) console.log(`Harness results kept in ${outputRoot}`);
    else await rm(outputRoot, { recursive: true, force: true });
  }
}

/**
 * Reads `expected-failures.json`: `{ "<revision>": { "<scenario>[:<check-id>]": "<reason>" } }`;
 * keys starting with `$` are comments. Every entry needs a reason.
 */
async function readBaseline() {
  const parsed = JSON.parse(await readFile(baselinePath, 'utf8'));
  for (const [revision, entries] of Object.entries(parsed)) {
    if (revision.startsWith('$')) continue;
    for (const [key, reason] of Object.entries(entries)) {
      if (typeof reason !== 'string' || reason.trim() === '') {
        throw new Error(`expected-failures.json: "${revision}" / "${key}" needs a reason.`);
      }
    }
  }
  return parsed;
}

/** The whole-scenario entry and the per-check entries of `name` in a baseline section. */
function baselineEntriesFor(entries, name) {
  let whole;
  const checks = new Map();
  for (const [key, reason] of Object.entries(entries)) {
    // Scenario names contain "/" but never ":"; a check id follows the first ":".
    const colon = key.indexOf(':');
    if (colon === -1 && key === name) whole = reason;
    else if (colon !== -1 && key.slice(0, colon) === name) checks.set(key.slice(colon + 1), reason);
  }
  return [whole, checks];
}

/**
 * The command the harness runs per scenario (it appends the server URL). The harness splits it
 * on spaces and runs it through a shell, so paths are quoted when they need it.
 */
async function clientCommand(outputRoot) {
  if (viaTsx) {
    return `${quote(process.execPath)} ${quote(tsxPath)} --conditions=@switchboard/source ${quote(clientPath)}`;
  }
  const bundlePath = path.join(outputRoot, 'client.mjs');
  await build({
    entryPoints: [clientPath],
    outfile: bundlePath,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // The workspace packages from source (their `@switchboard/source` export condition).
    conditions: ['@switchboard/source'],
    // No source map: `--enable-source-maps` costs ~0.15 s of CPU per client, times 64 clients.
    logLevel: 'warning',
    // Bundled CommonJS dependencies may call require().
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  return `${quote(process.execPath)} ${quote(bundlePath)}`;
}

/**
 * Runs one requirement set, then reruns on its own each failed scenario `shouldRetry` picks.
 * Returns the scenarios in the harness's order, or `error` when it printed no summary.
 */
async function runRevision(command, revision, outputRoot, shouldRetry) {
  const started = performance.now();
  const outputDir = path.join(outputRoot, revision);
  const args =
    onlyScenario === undefined
      ? ['--requirements', revision]
      : ['--scenario', onlyScenario, '--spec-version', revision, '--force'];
  const { code, output } = await runHarness(command, args, outputDir);
  const summary = parseSummary(output);
  // One scenario: the harness prints its checks, not a suite summary.
  if (onlyScenario !== undefined && summary.order.length === 0 && existsSync(outputDir)) {
    summary.order.push(onlyScenario);
  }
  if (summary.order.length === 0) {
    const error = `the harness printed no suite summary (exit code ${code}).`;
    return { revision, seconds: elapsed(started), output, error };
  }
  const results = await readResults(outputDir);
  const scenarios = [];
  for (const name of summary.order) {
    let scenario = toScenario(name, results.get(name), summary);
    if (!scenario.passed && !scenario.skipped && shouldRetry(scenario)) {
      const retryDir = path.join(outputRoot, `${revision}-retry`, name.replaceAll('/', '_'));
      const args = ['--scenario', name, '--spec-version', revision, '--force'];
      await runHarness(command, args, retryDir);
      const retried = toScenario(name, (await readResults(retryDir)).get(name), summary);
      scenario = { ...retried, retried: true, firstFailing: scenario.failing };
    }
    scenarios.push(scenario);
  }
  return { revision, seconds: elapsed(started), output, scenarios };
}

/** Runs the harness's `client` command with `args`, results in `outputDir`. */
async function runHarness(command, args, outputDir) {
  const nodeOptions = [process.env.NODE_OPTIONS, `--import=${pathToFileURL(loopbackPath).href}`]
    .filter(Boolean)
    .join(' ');
  const npxArgs = [
    '-y',
    '-p',
    NODE_PACKAGE,
    '-p',
    CONFORMANCE_PACKAGE,
    '--',
    'conformance',
    'client',
    '--command',
    command,
    '--timeout',
    String(SCENARIO_TIMEOUT_MS),
    '-o',
    outputDir,
    ...args,
  ];
  const result = await run('npx', npxArgs, {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  if (verbose) console.log(result.output);
  return result;
}

/** Scenario names in run order, skipped ones, and not-scored reasons, from the suite output. */
function parseSummary(output) {
  const order = [];
  const skipped = new Set();
  const notScored = new Map();
  let section = 'before';
  for (const line of output.split('\n')) {
    if (line.includes('=== SUITE SUMMARY ===')) section = 'summary';
    else if (section !== 'before' && line.startsWith('Not scored for ')) section = 'not-scored';
    if (section === 'summary') {
      const result = /^[✓✗] (\S+): \d+ passed, \d+ failed/.exec(line);
      const skip = /^- (\S+): skipped$/.exec(line);
      if (result !== null) order.push(result[1]);
      if (skip !== null) {
        order.push(skip[1]);
        skipped.add(skip[1]);
      }
    } else if (section === 'not-scored') {
      const unscored = /^\s+[✓✗] (\S+) \(([^)]+)\)$/.exec(line);
      if (unscored !== null) notScored.set(unscored[1], unscored[2]);
    }
  }
  return { order, skipped, notScored };
}

/**
 * Each scenario's `checks.json` and the client's `stderr.txt`, from
 * `<dir>/<scenario>-<ISO timestamp>/` (auth scenarios nest: `auth/<name>-…`).
 */
async function readResults(outputDir) {
  const byScenario = new Map();
  if (!existsSync(outputDir)) return byScenario;
  for (const file of (await listFiles(outputDir)).sort()) {
    if (path.basename(file) !== 'checks.json') continue;
    const directory = path.dirname(file);
    const name = directory
      .split(path.sep)
      .join('/')
      .replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    const stderrPath = path.join(outputDir, directory, 'stderr.txt');
    byScenario.set(name, {
      checks: JSON.parse(await readFile(path.join(outputDir, file), 'utf8')),
      stderr: existsSync(stderrPath) ? await readFile(stderrPath, 'utf8') : '',
    });
  }
  return byScenario;
}

/** Files under `directory`, relative to it (`readdir`'s `recursive` misses some on Node 20). */
async function listFiles(directory, prefix = '') {
  const files = [];
  for (const entry of await readdir(path.join(directory, prefix), { withFileTypes: true })) {
    const relative = path.join(prefix, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(directory, relative)));
    else files.push(relative);
  }
  return files;
}

function toScenario(name, result, summary) {
  const checks = result?.checks ?? [];
  const failing = checks.filter(
    (check) => check.status === 'FAILURE' || check.status === 'WARNING',
  );
  const passing = checks.filter((check) => check.status === 'SUCCESS');
  const skipped = summary.skipped.has(name);
  return {
    name,
    notScored: summary.notScored.get(name),
    skipped,
    passed: !skipped && failing.length === 0 && passing.length > 0,
    passingIds: new Set(passing.map((check) => check.id)),
    failing: failing.map((check) => ({
      id: check.id,
      message: oneLine(check.errorMessage ?? check.description ?? ''),
    })),
    stderr: result?.stderr ?? '',
    missingChecks: !skipped && result === undefined,
  };
}

/** True when the client failed on the transport or never finished (killed at the timeout). */
function hasTransportFailure(scenario) {
  return TRANSPORT_FAILURE.test(scenario.stderr) || !scenario.stderr.includes('done after');
}

/**
 * Compares the gated run with its baseline section. A `<scenario>` entry expects the scenario to
 * fail; a `<scenario>:<check-id>` entry excuses that one check, other failing checks still count.
 */
function compareWithBaseline(scenarios, entries, wholeSet) {
  const problems = [];
  const status = new Map();
  const ran = new Set(scenarios.map((scenario) => scenario.name));
  for (const key of Object.keys(entries)) {
    const name = key.includes(':') ? key.slice(0, key.indexOf(':')) : key;
    if (wholeSet && !ran.has(name)) {
      problems.push(`expected-failures.json lists "${key}", which did not run.`);
    }
  }
  for (const scenario of scenarios) {
    const [whole, excused] = baselineEntriesFor(entries, scenario.name);
    if (scenario.skipped) {
      status.set(scenario.name, { kind: 'skipped' });
    } else if (whole !== undefined) {
      if (scenario.passed) {
        problems.push(`${scenario.name} passes: remove it from expected-failures.json.`);
        status.set(scenario.name, { kind: 'stale' });
      } else {
        status.set(scenario.name, { kind: 'expected', reason: whole });
      }
    } else {
      for (const checkId of excused.keys()) {
        const fails = scenario.failing.some((check) => check.id === checkId);
        if (!fails && scenario.passingIds.has(checkId)) {
          problems.push(
            `${scenario.name}:${checkId} passes: remove it from expected-failures.json.`,
          );
        }
      }
      const unexpected = scenario.failing.filter((check) => !excused.has(check.id));
      if (scenario.passed) {
        status.set(scenario.name, { kind: 'pass' });
      } else if (unexpected.length === 0 && scenario.failing.length > 0) {
        const reasons = new Set(scenario.failing.map((check) => excused.get(check.id)));
        status.set(scenario.name, { kind: 'expected', reason: [...reasons].join('; ') });
      } else {
        status.set(scenario.name, { kind: 'unexpected' });
        problems.push(`${scenario.name} fails (not in expected-failures.json): ${why(scenario)}`);
      }
    }
  }
  return { problems, status };
}

function why(scenario) {
  if (scenario.missingChecks) return 'the harness saved no checks for it.';
  if (scenario.failing.length === 0) return 'no check succeeded (nothing was verified).';
  return scenario.failing.map((check) => `${check.id} (${check.message})`).join('; ');
}

function printRevision(result, verdict) {
  console.log(`\nMCP client conformance (${result.revision}, ${CONFORMANCE_PACKAGE}):`);
  for (const scenario of result.scenarios) {
    const state = verdict?.status.get(scenario.name);
    let mark = scenario.passed ? '✓' : '✗';
    if (scenario.skipped) mark = '-';
    else if (state?.kind === 'expected') mark = '~';
    else if (state?.kind === 'stale') mark = '!';
    let detail = '';
    if (state?.kind === 'expected') detail = ` (expected: ${oneLine(state.reason, 100)})`;
    else if (!scenario.passed && !scenario.skipped) detail = ` ${oneLine(why(scenario), 300)}`;
    const unscored = scenario.notScored === undefined ? '' : ` [not scored: ${scenario.notScored}]`;
    const retried = scenario.retried === true ? ' [rerun alone]' : '';
    console.log(`  ${mark} ${scenario.name}${unscored}${retried}${detail}`);
  }
  const { passed, failed } = count(result.scenarios);
  let line = `${result.revision}: ${passed} passed, ${failed} failed`;
  if (verdict !== undefined) {
    const expected = [...verdict.status.values()].filter((state) => state.kind === 'expected');
    line += ` (${expected.length} of them expected by the baseline; ${verdict.problems.length} problems)`;
  }
  console.log(`${line}, ${result.seconds.toFixed(1)} s`);
}

function count(scenarios) {
  const passed = scenarios.filter((scenario) => scenario.passed).length;
  const failed = scenarios.filter((scenario) => !scenario.passed && !scenario.skipped).length;
  return { passed, failed };
}

/** The table of `results.md`: one column per requirement set, a row per scenario. */
function renderResults(runs) {
  const names = [];
  for (const { result } of runs) {
    for (const scenario of result.scenarios) {
      if (!names.includes(scenario.name)) names.push(scenario.name);
    }
  }
  const byName = runs.map(({ result }) => new Map(result.scenarios.map((s) => [s.name, s])));

  const cell = (scenario, state) => {
    if (scenario === undefined) return '—';
    let text = scenario.passed ? 'pass' : 'FAIL';
    if (scenario.skipped) text = 'skipped';
    else if (state?.kind === 'expected') text = 'fail (baselined)';
    if (scenario.notScored !== undefined) text += ` (not scored: ${scenario.notScored})`;
    return text;
  };
  const notes = (scenario, label, state) => {
    if (scenario === undefined) return [];
    const parts = [];
    if (state?.kind === 'expected') parts.push(`${label} baseline: ${state.reason}`);
    if (scenario.retried === true) {
      const verb = scenario.passed ? 'passed' : 'failed too';
      parts.push(
        `${label}: failed in the parallel run (on a busy machine), ${verb} when rerun alone`,
      );
    }
    if (!scenario.passed && !scenario.skipped && state?.kind !== 'expected') {
      const ids = [...new Set(scenario.failing.map((check) => `\`${check.id}\``))];
      parts.push(`${label}: ${ids.length > 0 ? ids.join(', ') : why(scenario)}`);
    }
    return parts;
  };

  const lines = [
    '# MCP client conformance',
    '',
    'Generated by `npm run test:conformance` (`run-conformance.mjs`); do not edit by hand.',
    `Harness: \`${CONFORMANCE_PACKAGE}\` on \`${NODE_PACKAGE}\`. Client under test:`,
    '`client.ts` (our `mcpServer()`), on the project Node.',
    '',
    ...runs.map(({ result }) => {
      const { passed, failed } = count(result.scenarios);
      return `- **${result.revision}** (gate): ${passed} passed, ${failed} failed.`;
    }),
    '- Both sets are gates: every failure must be listed in `expected-failures.json` under its',
    '  set, and a listed scenario that passes fails the run.',
    '- A scenario passes with at least one SUCCESS check and no FAILURE or WARNING check.',
    '',
    `| Scenario | ${runs.map(({ result }) => result.revision).join(' | ')} | Notes |`,
    `| --- | ${runs.map(() => '---').join(' | ')} | --- |`,
  ];
  for (const name of names) {
    const cells = [];
    const noteParts = [];
    runs.forEach(({ result, verdict }, index) => {
      const scenario = byName[index].get(name);
      const state = verdict.status.get(name);
      cells.push(cell(scenario, state));
      noteParts.push(...notes(scenario, result.revision, state));
    });
    const row = [`\`${name}\``, ...cells, noteParts.join('<br>')];
    lines.push(`| ${row.map((text) => text.replaceAll('|', '\\|')).join(' | ')} |`);
  }
  lines.push('');
  return lines.join('\n');
}

function elapsed(started) {
  return (performance.now() - started) / 1000;
}

function oneLine(text, max = 200) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function quote(value) {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `"${value.replaceAll('"', '\\"')}"`;
}

/** Process groups of harness runs in flight, ended when this script is interrupted. */
const running = new Set();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const pid of running) endGroup(pid);
    process.exit(130);
  });
}

function endGroup(pid) {
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

/** Runs a command, collecting stdout and stderr together; ends it after the time budget. */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    // Its own process group, so that ending it also ends the clients the harness started.
    const child = spawn(command, args, {
      ...options,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child.pid);
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n[ended after ${HARNESS_TIMEOUT_MS} ms]\n`;
      endGroup(child.pid);
    }, HARNESS_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      running.delete(child.pid);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(child.pid);
      resolve({ code, output });
    });
  });
}
