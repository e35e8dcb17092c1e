// Runs the official MCP client conformance suite (`@modelcontextprotocol/conformance`) against
// our MCP layer (`client.ts` in this folder) and checks the result against a baseline.
//
//   node packages/core/conformance/run-conformance.mjs [--verbose] [--no-report] [--keep] [--tsx]
//
// `--verbose` prints the harness output, `--keep` keeps its result folders (checks.json,
// stdout.txt, stderr.txt per scenario) and prints where, `--tsx` runs `client.ts` through tsx
// instead of the bundle (see below).
//
// 1. The 2025-11-25 requirement set (`--requirements 2025-11-25`, including the scenarios the set
//    runs without scoring) is the gate. A scenario passes when it has at least one SUCCESS check
//    and no FAILURE or WARNING check (the harness itself lets a scenario with no checks at all
//    pass; we count that as a failure, since nothing was verified). The run fails (exit 1) when
//    a scenario that is not in `expected-failures.json` fails, or when a baselined one passes
//    (remove the entry: the baseline stays honest). Exit 2: the harness could not run.
// 2. The 2026-07-28 requirement set runs report-only (never changes the exit code), unless
//    `--no-report`.
// 3. `results.md` in this folder gets a compatibility table of both runs.
//
// The harness needs Node >= 22 (it imports `fs.globSync`), so it runs from npx with the npm
// package `node@22`; our client still runs on this Node (the harness's PATH would otherwise give
// it Node 22 too). The harness starts every scenario of a set at once (25 for 2025-11-25, 39 for
// 2026-07-28), each with a 30 s budget. Through tsx a client costs ~1.6 s of CPU (tsx's own
// process plus compiling the package), which on a 2-core machine makes every scenario time out;
// so by default `client.ts` is bundled once with esbuild (what tsx uses underneath) and run with
// plain `node` (~0.3 s of CPU). `--tsx` runs it through tsx as-is. The harness's mock servers call `listen(0)` without a host, i.e. on every
// interface; `loopback-preload.mjs` moves them to 127.0.0.1.
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
const GATED_REVISION = '2025-11-25';
const REPORT_REVISION = '2026-07-28';
/** Per-scenario client timeout passed to the harness, in ms (the harness default). */
const SCENARIO_TIMEOUT_MS = 30_000;
/** The whole harness process is killed after this long, in ms. */
const HARNESS_TIMEOUT_MS = 180_000;

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const baselinePath = path.join(here, 'expected-failures.json');
const resultsPath = path.join(here, 'results.md');
const loopbackPath = path.join(here, 'loopback-preload.mjs');
const tsxPath = path.join(root, 'node_modules/.bin/tsx');
const clientPath = path.join(here, 'client.ts');

const argv = process.argv.slice(2);
const verbose = argv.includes('--verbose');
const report = !argv.includes('--no-report');
const keep = argv.includes('--keep');
const viaTsx = argv.includes('--tsx');

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
    const gated = await runRevision(command, GATED_REVISION, path.join(outputRoot, GATED_REVISION));
    if (gated.error !== undefined) {
      console.error(gated.output);
      console.error(`conformance: ${gated.error}`);
      return 2;
    }
    const verdict = compareWithBaseline(gated.scenarios, baseline[GATED_REVISION] ?? {});
    printRevision(gated, verdict);

    let reported;
    if (report) {
      reported = await runRevision(
        command,
        REPORT_REVISION,
        path.join(outputRoot, REPORT_REVISION),
      );
      if (reported.error === undefined) {
        printRevision(reported, undefined);
      } else {
        console.log(`\n${REPORT_REVISION} (report only): not run: ${reported.error}`);
      }
    }

    await writeFile(resultsPath, renderResults(gated, verdict, reported));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`\nWrote ${path.relative(root, resultsPath)} (${seconds} s in all).`);

    for (const problem of verdict.problems) console.error(`conformance: ${problem}`);
    return verdict.problems.length === 0 ? 0 : 1;
  } finally {
    if (keep) console.log(`Harness results kept in ${outputRoot}`);
    else await rm(outputRoot, { recursive: true, force: true });
  }
}

/**
 * The command the harness runs per scenario (it appends the server URL). It splits the command
 * on spaces and runs it through a shell, so paths are quoted when they need it.
 */
async function clientCommand(outputRoot) {
  if (viaTsx) return `${quote(process.execPath)} ${quote(tsxPath)} ${quote(clientPath)}`;
  const bundlePath = path.join(outputRoot, 'client.mjs');
  await build({
    entryPoints: [clientPath],
    outfile: bundlePath,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    // Bundled CommonJS dependencies may call require().
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  });
  return `${quote(process.execPath)} --enable-source-maps ${quote(bundlePath)}`;
}

/**
 * Reads `expected-failures.json`: `{ "<revision>": { "<scenario>[:<check-id>]": "<reason>" } }`.
 * Every entry needs a reason.
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

/** Runs one requirement set; returns each scenario's checks (from the harness's checks.json). */
async function runRevision(command, revision, outputDir) {
  const started = performance.now();
  const nodeOptions = [process.env.NODE_OPTIONS, `--import=${pathToFileURL(loopbackPath).href}`]
    .filter(Boolean)
    .join(' ');
  const args = [
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
    '--requirements',
    revision,
    '--timeout',
    String(SCENARIO_TIMEOUT_MS),
    '-o',
    outputDir,
  ];
  const { code, output } = await run('npx', args, {
    cwd: root,
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  const seconds = (performance.now() - started) / 1000;
  if (verbose) console.log(output);

  const summary = parseSummary(output);
  if (summary.order.length === 0) {
    return {
      revision,
      seconds,
      output,
      error: `the harness printed no suite summary (exit code ${code}).`,
    };
  }
  const checksByScenario = await readChecks(outputDir);
  const scenarios = summary.order.map((name) => {
    const checks = checksByScenario.get(name) ?? [];
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
        status: check.status,
        message: oneLine(check.errorMessage ?? check.description ?? ''),
      })),
      nothingVerified:
        !skipped && checks.length > 0 && passing.length === 0 && failing.length === 0,
      missingChecks: !skipped && !checksByScenario.has(name),
    };
  });
  return { revision, seconds, output, scenarios };
}

/** Scenario names in run order, skipped ones, and not-scored reasons from the harness output. */
function parseSummary(output) {
  const order = [];
  const skipped = new Set();
  const notScored = new Map();
  let inSummary = false;
  let inNotScored = false;
  for (const line of output.split('\n')) {
    if (line.includes('=== SUITE SUMMARY ===')) {
      inSummary = true;
      continue;
    }
    if (!inSummary) continue;
    if (line.startsWith('Not scored for ')) {
      inNotScored = true;
      continue;
    }
    const result = /^[✓✗] (\S+): \d+ passed, \d+ failed/.exec(line);
    if (result !== null && !inNotScored) {
      order.push(result[1]);
      continue;
    }
    const skip = /^- (\S+): skipped$/.exec(line);
    if (skip !== null && !inNotScored) {
      order.push(skip[1]);
      skipped.add(skip[1]);
      continue;
    }
    const unscored = /^\s+[✓✗] (\S+) \(([^)]+)\)$/.exec(line);
    if (unscored !== null && inNotScored) notScored.set(unscored[1], unscored[2]);
  }
  return { order, skipped, notScored };
}

/** `<dir>/<scenario>-<ISO timestamp>/checks.json` (auth scenarios nest: `auth/<name>-…`). */
async function readChecks(outputDir) {
  const byScenario = new Map();
  if (!existsSync(outputDir)) return byScenario;
  for (const entry of (await listFiles(outputDir)).sort()) {
    if (path.basename(entry) !== 'checks.json') continue;
    const directory = path.dirname(entry).split(path.sep).join('/');
    const name = directory.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
    byScenario.set(name, JSON.parse(await readFile(path.join(outputDir, entry), 'utf8')));
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

/**
 * Compares a run with the baseline. A `<scenario>` entry expects the scenario to fail; a
 * `<scenario>:<check-id>` entry excuses that one check, and other failing checks still count.
 */
function compareWithBaseline(scenarios, entries) {
  const problems = [];
  const status = new Map();
  const byScenario = new Map();
  for (const key of Object.keys(entries)) {
    const [scenario, checkId] = splitKey(key);
    const entry = byScenario.get(scenario) ?? { whole: undefined, checks: new Map() };
    if (checkId === undefined) entry.whole = entries[key];
    else entry.checks.set(checkId, entries[key]);
    byScenario.set(scenario, entry);
  }
  const ran = new Set(scenarios.map((scenario) => scenario.name));
  for (const name of byScenario.keys()) {
    if (!ran.has(name)) {
      problems.push(`expected-failures.json names "${name}", which the suite did not run.`);
    }
  }
  for (const scenario of scenarios) {
    const entry = byScenario.get(scenario.name);
    if (scenario.skipped) {
      status.set(scenario.name, { kind: 'skipped' });
      continue;
    }
    if (entry?.whole !== undefined) {
      if (scenario.passed) {
        problems.push(
          `${scenario.name} passes but is baselined; remove it from expected-failures.json.`,
        );
        status.set(scenario.name, { kind: 'stale' });
      } else {
        status.set(scenario.name, { kind: 'expected', reason: entry.whole });
      }
      continue;
    }
    const excused = entry?.checks ?? new Map();
    for (const [checkId] of excused) {
      const stillFails = scenario.failing.some((check) => check.id === checkId);
      if (!stillFails && scenario.passingIds.has(checkId)) {
        problems.push(
          `${scenario.name}:${checkId} passes but is baselined; remove it from expected-failures.json.`,
        );
      }
    }
    const unexpected = scenario.failing.filter((check) => !excused.has(check.id));
    if (scenario.passed) {
      status.set(scenario.name, { kind: 'pass' });
    } else if (
      unexpected.length === 0 &&
      !scenario.nothingVerified &&
      !scenario.missingChecks &&
      scenario.failing.length > 0
    ) {
      const reasons = [...new Set(scenario.failing.map((check) => excused.get(check.id)))];
      status.set(scenario.name, { kind: 'expected', reason: reasons.join('; ') });
    } else {
      status.set(scenario.name, { kind: 'unexpected' });
      problems.push(
        `${scenario.name} fails and is not in expected-failures.json: ${why(scenario)}`,
      );
    }
  }
  return { problems, status };
}

function splitKey(key) {
  // Scenario names contain "/" but never ":"; check ids follow the first ":".
  const colon = key.indexOf(':');
  return colon === -1 ? [key, undefined] : [key.slice(0, colon), key.slice(colon + 1)];
}

function why(scenario) {
  if (scenario.missingChecks) return 'the harness saved no checks for it.';
  if (scenario.nothingVerified) return 'no check succeeded (nothing was verified).';
  return scenario.failing.map((check) => `${check.id} (${check.message})`).join('; ');
}

function printRevision(result, verdict) {
  const title = verdict === undefined ? `${result.revision} (report only)` : result.revision;
  console.log(`\nMCP client conformance, ${title}, ${CONFORMANCE_PACKAGE}:`);
  for (const scenario of result.scenarios) {
    const state = verdict?.status.get(scenario.name);
    const mark = scenario.skipped
      ? '-'
      : scenario.passed
        ? '✓'
        : state?.kind === 'expected'
          ? '~'
          : '✗';
    let detail = '';
    if (state?.kind === 'expected') detail = `  (expected: ${state.reason})`;
    else if (!scenario.passed && !scenario.skipped) detail = `  ${why(scenario)}`;
    const unscored = scenario.notScored === undefined ? '' : ` [not scored: ${scenario.notScored}]`;
    console.log(`  ${mark} ${scenario.name}${unscored}${detail}`);
  }
  const passed = result.scenarios.filter((scenario) => scenario.passed).length;
  const failed = result.scenarios.filter(
    (scenario) => !scenario.passed && !scenario.skipped,
  ).length;
  let line = `${result.revision}: ${passed} passed, ${failed} failed`;
  if (verdict !== undefined) {
    const expected = [...verdict.status.values()].filter((s) => s.kind === 'expected').length;
    line += ` (${expected} expected by the baseline, ${verdict.problems.length} problems)`;
  }
  console.log(`${line} in ${result.seconds.toFixed(1)} s`);
}

function renderResults(gated, verdict, reported) {
  const names = [...gated.scenarios.map((scenario) => scenario.name)];
  const reportedScenarios = reported?.scenarios ?? [];
  for (const scenario of reportedScenarios) {
    if (!names.includes(scenario.name)) names.push(scenario.name);
  }
  const gatedByName = new Map(gated.scenarios.map((scenario) => [scenario.name, scenario]));
  const reportedByName = new Map(reportedScenarios.map((scenario) => [scenario.name, scenario]));

  const cell = (scenario, state) => {
    if (scenario === undefined) return '—';
    let text = scenario.skipped ? 'skipped' : scenario.passed ? 'pass' : 'FAIL';
    if (state?.kind === 'expected') text = 'fail (baselined)';
    if (scenario.notScored !== undefined) text += ` (not scored: ${scenario.notScored})`;
    return text;
  };
  const notes = (scenario, label) => {
    if (scenario === undefined || scenario.passed || scenario.skipped) return [];
    const ids = [...new Set(scenario.failing.map((check) => check.id))];
    const detail = ids.length > 0 ? ids.map((id) => `\`${id}\``).join(', ') : why(scenario);
    return [`${label}: ${detail}`];
  };

  const count = (scenarios) => {
    const passed = scenarios.filter((scenario) => scenario.passed).length;
    const failed = scenarios.filter((scenario) => !scenario.passed && !scenario.skipped).length;
    return `${passed} passed, ${failed} failed`;
  };

  const lines = [
    '# MCP client conformance',
    '',
    `Generated by \`npm run test:conformance\` (\`packages/core/conformance/run-conformance.mjs\`)`,
    `with \`${CONFORMANCE_PACKAGE}\` (run on \`${NODE_PACKAGE}\`; the client under test,`,
    '`client.ts`, runs on the project Node through our `mcpServer()`). Do not edit by hand.',
    '',
    `- **${GATED_REVISION}** (gate): ${count(gated.scenarios)}. Failures must be listed in`,
    '  `expected-failures.json`; a listed scenario that passes fails the run.',
    reported === undefined
      ? `- **${REPORT_REVISION}** (report only): not run.`
      : reported.error === undefined
        ? `- **${REPORT_REVISION}** (report only): ${count(reportedScenarios)}.`
        : `- **${REPORT_REVISION}** (report only): not run: ${reported.error}`,
    '- A scenario passes when it has at least one SUCCESS check and no FAILURE or WARNING check.',
    '',
    `| Scenario | ${GATED_REVISION} | ${REPORT_REVISION} | Notes |`,
    '| --- | --- | --- | --- |',
  ];
  for (const name of names) {
    const first = gatedByName.get(name);
    const second = reportedByName.get(name);
    const state = verdict.status.get(name);
    const noteParts = [
      ...(state?.kind === 'expected' ? [`baseline: ${state.reason}`] : []),
      ...notes(first, GATED_REVISION),
      ...notes(second, REPORT_REVISION),
    ];
    const row = [
      `\`${name}\``,
      cell(first, state),
      cell(second, undefined),
      noteParts.join('<br>'),
    ];
    lines.push(`| ${row.map((text) => text.replaceAll('|', '\\|')).join(' | ')} |`);
  }
  lines.push('');
  return lines.join('\n');
}

function oneLine(text) {
  const flat = String(text).replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}

function quote(value) {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `"${value.replaceAll('"', '\\"')}"`;
}

/** Runs a command, collecting stdout and stderr together; kills it after the time budget. */
function run(command, args, options) {
  return new Promise((resolve, reject) => {
    // Its own process group, so that a timeout ends the harness and the clients it started.
    const child = spawn(command, args, {
      ...options,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => {
      output += `\n[killed after ${HARNESS_TIMEOUT_MS} ms]\n`;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
    }, HARNESS_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
