import type { Benchmark } from '../benchmark.ts';
import { withBrowserPage } from '../browser/chromium.ts';
import type {
  Measured,
  RenderTrial,
  RenderTrialOptions,
} from '../browser/pages/use-agent-page.tsx';
import type { Figure } from '../report.ts';
import { benchText } from '../servers/bench-text.ts';
import { pairedRatios, summarize } from '../stats.ts';

const WORDS = 10_000;
// An in-page answer lasts only 3–6 animation frames, so one frame more or less moves a pair's
// ratio by 0.2–0.3: enough pairs that the median is not decided by one late frame.
const IN_PAGE_PAIRS = 20;
const PACED_WORDS = 3_000;
const PACED_PAIRS = 2;
const PACE_MS = 1;
const BURST_WORDS = 2_000;
const LONG_TASK_MS = 50;
const MAX_DURATION_RATIO = 1.5;

function longTaskNote(measured: readonly Measured[]): string {
  const tasks = measured.flatMap((entry) => entry.longTasks);
  return tasks.length === 0
    ? 'none'
    : `${tasks.length}: ${tasks.map((duration) => duration.toFixed(0)).join(', ')} ms`;
}

function renderFigures(label: string, trials: readonly RenderTrial[]): Figure[] {
  return [
    {
      label: `${label}: commits / animation frames, per answer`,
      value: summarize(trials.map((trial) => trial.commits / trial.frames)),
      unit: 'ratio',
    },
    {
      label: `${label}: React commits per answer`,
      value: summarize(trials.map((trial) => trial.commits)),
      unit: 'count',
    },
    {
      label: `${label}: animation frames per answer`,
      value: summarize(trials.map((trial) => trial.frames)),
      unit: 'count',
    },
    {
      label: `${label}: long tasks (> ${LONG_TASK_MS} ms), all answers`,
      value: trials.flatMap((trial) => trial.longTasks).length,
      unit: 'count',
      note: longTaskNote(trials),
    },
    {
      label: `${label}: for scale only, answer duration`,
      value: summarize(trials.map((trial) => trial.ms)),
      unit: 'ms',
    },
  ];
}

export const useAgentRenderBenchmark: Benchmark = {
  id: 7,
  key: 'use-agent-render',
  title: '`useAgent` rendering 10,000 streamed deltas in Chromium',
  baseline: 'animation frames elapsed meanwhile (and the same stream in plain React state)',
  target: `commits ≤ frames; no task over ${LONG_TASK_MS} ms that plain React does not have; in-page time ≤ ${MAX_DURATION_RATIO}× plain React; burst no longer than the SDK alone`,
  async run({ servers, log }) {
    const inPage: RenderTrial[] = [];
    const inPagePlain: RenderTrial[] = [];
    const paced: RenderTrial[] = [];
    const pacedPlain: RenderTrial[] = [];
    const warmUp: RenderTrial[] = [];
    let burst: RenderTrial | undefined;
    let burstSdk: Measured | undefined;
    await withBrowserPage(
      new URL('../browser/pages/use-agent-page.tsx', import.meta.url),
      async ({ page }) => {
        const withAgent = (options: Omit<RenderTrialOptions, 'modelUrl'>) =>
          page.evaluate(
            (all) => (window.benchRenderTrial as NonNullable<Window['benchRenderTrial']>)(all),
            { ...options, modelUrl: servers.modelUrl },
          );
        const plain = (options: Omit<RenderTrialOptions, 'modelUrl'>) =>
          page.evaluate(
            (all) => (window.benchPlainTrial as NonNullable<Window['benchPlainTrial']>)(all),
            { ...options, modelUrl: servers.modelUrl },
          );
        const pairs = async (
          count: number,
          options: Omit<RenderTrialOptions, 'modelUrl'>,
          a: RenderTrial[],
          b: RenderTrial[],
        ) => {
          for (let pair = 0; pair < count; pair += 1) {
            if (pair % 2 === 0) {
              a.push(await withAgent(options));
              b.push(await plain(options));
            } else {
              b.push(await plain(options));
              a.push(await withAgent(options));
            }
          }
        };
        const inPageOptions = { source: 'in-page', words: WORDS, delayMs: 0 } as const;
        log(
          `in-page stream: warm-up, then ${IN_PAGE_PAIRS} pairs (useAgent, plain React) of ${WORDS} deltas`,
        );
        warmUp.push(await withAgent(inPageOptions), await plain(inPageOptions));
        await pairs(IN_PAGE_PAIRS, inPageOptions, inPage, inPagePlain);
        log(`provider stream, ${PACED_WORDS} deltas paced ${PACE_MS} ms: ${PACED_PAIRS} pairs`);
        await pairs(
          PACED_PAIRS,
          { source: 'provider', words: PACED_WORDS, delayMs: PACE_MS },
          paced,
          pacedPlain,
        );
        log(`provider burst of ${BURST_WORDS} deltas, and the SDK alone`);
        burst = await withAgent({ source: 'provider', words: BURST_WORDS, delayMs: 0 });
        burstSdk = await page.evaluate(
          (all) => (window.benchSdkOnly as NonNullable<Window['benchSdkOnly']>)(all),
          { modelUrl: servers.modelUrl, words: BURST_WORDS, delayMs: 0 },
        );
      },
    );
    if (burst === undefined || burstSdk === undefined)
      throw new Error('the browser session ended early');

    const all = [...inPage, ...paced];
    const expected = (trial: RenderTrial, words: number) =>
      trial.status === 'completed' && trial.renderedCharacters === benchText(words).length;
    const complete =
      inPage.every((trial) => expected(trial, WORDS)) &&
      inPagePlain.every((trial) => expected(trial, WORDS)) &&
      paced.every((trial) => expected(trial, PACED_WORDS)) &&
      pacedPlain.every((trial) => expected(trial, PACED_WORDS));
    const withinFrames = all.every((trial) => trial.commits <= trial.frames);
    const count = (trials: readonly Measured[]) =>
      trials.flatMap((trial) => trial.longTasks).length;
    const durationRatio = summarize(
      pairedRatios(
        inPage.map((trial) => trial.ms),
        inPagePlain.map((trial) => trial.ms),
      ),
    );
    const burstLongest = Math.max(0, ...burst.longTasks);
    const burstSdkLongest = Math.max(0, ...burstSdk.longTasks);
    // Issue 17: no long task plain React on the same stream does not have, ≤ 1.5× its time for
    // the in-page answers, and a burst that blocks the page no longer than the SDK alone does.
    const met =
      complete &&
      withinFrames &&
      count(inPage) <= count(inPagePlain) &&
      count(paced) <= count(pacedPlain) &&
      durationRatio.median <= MAX_DURATION_RATIO &&
      burstLongest <= burstSdkLongest;
    const inPageRatio = summarize(inPage.map((trial) => trial.commits / trial.frames));
    const pacedRatio = summarize(paced.map((trial) => trial.commits / trial.frames));
    const notes: string[] = [];
    notes.push(
      `In-page, the same ${WORDS.toLocaleString('en-US')} deltas take ×${durationRatio.median.toFixed(1)} as long to reach ` +
        'the screen through agent → `AgentChat` → `useAgent` as through plain React state ' +
        `(${summarize(inPage.map((trial) => trial.ms)).median.toFixed(0)} vs ${summarize(inPagePlain.map((trial) => trial.ms)).median.toFixed(0)} ms median): ` +
        'the per-delta cost is in the Switchboard pipeline, and over that longer window every frame ' +
        're-renders the growing text, which is where its long tasks fall.',
    );
    if (!complete) {
      notes.push(
        'Not every answer completed with all its characters on screen: ' +
          [...inPage, ...inPagePlain, ...paced, ...pacedPlain]
            .map((trial) => `${trial.status}/${trial.renderedCharacters}`)
            .join(', '),
      );
    }
    notes.push(
      'Long tasks are wall-clock: on a loaded machine a task the OS preempts counts as long too, ' +
        'so read the useAgent column against the plain-React column measured in the same minutes.',
    );
    if (burstLongest > LONG_TASK_MS) {
      notes.push(
        `A ${BURST_WORDS.toLocaleString('en-US')}-delta answer sent all at once from loopback blocks the page: ` +
          `longest task ${burstLongest.toFixed(0)} ms through \`openaiChatModel\` and \`useAgent\`, ` +
          `${burstSdkLongest.toFixed(0)} ms for the \`openai\` SDK alone (no Switchboard, no React). The ` +
          "SDK's SSE splitter (`iterSSEChunks` in openai 6.30.1) copies the rest of its buffer after every " +
          'event, quadratic in the size of a network read; browsers hand over large reads when the main ' +
          'thread falls behind. `openaiChatModel` reads the body itself with `eventsource-parser` (linear, ' +
          'one batch per read). The provider answers above are paced at ' +
          `${PACE_MS} ms per delta and the 10,000-delta ` +
          'answers come from an in-page stream.',
      );
    }
    return {
      verdict: met ? 'met' : 'missed',
      headline:
        `commits/frames ×${inPageRatio.median.toFixed(3)} (max ${inPageRatio.max.toFixed(3)}) for 10,000 in-page deltas, ` +
        `×${pacedRatio.median.toFixed(3)} (max ${pacedRatio.max.toFixed(3)}) via openaiChatModel; ` +
        `tasks > ${LONG_TASK_MS} ms with useAgent ${count(inPage)} in-page + ${count(paced)} via provider ` +
        `(plain React, same streams: ${count(inPagePlain)} + ${count(pacedPlain)}); ` +
        `${BURST_WORDS}-delta burst: longest ${burstLongest.toFixed(0)} ms (SDK alone ${burstSdkLongest.toFixed(0)} ms)`,
      figures: [
        ...renderFigures(`useAgent, ${WORDS} in-page deltas (${IN_PAGE_PAIRS} answers)`, inPage),
        ...renderFigures(`Plain React, same stream (${IN_PAGE_PAIRS} answers)`, inPagePlain),
        {
          label: 'In-page answer duration, useAgent / plain React (paired)',
          value: durationRatio,
          unit: 'ratio',
        },
        {
          label: 'Long tasks in the unmeasured warm-up answers (useAgent, plain)',
          value: `${warmUp[0]?.longTasks.length ?? 0}, ${warmUp[1]?.longTasks.length ?? 0}`,
          unit: '',
        },
        ...renderFigures(
          `useAgent via openaiChatModel, ${PACED_WORDS} deltas paced ${PACE_MS} ms (${PACED_PAIRS} answers)`,
          paced,
        ),
        ...renderFigures(`Plain React on the openai SDK stream, same answers`, pacedPlain),
        {
          label: `useAgent via openaiChatModel, ${BURST_WORDS}-delta burst: long tasks`,
          value: burst.longTasks.length,
          unit: 'count',
          note: `${longTaskNote([burst])}; commits ${burst.commits}, frames ${burst.frames}`,
        },
        {
          label: 'openai SDK alone (no React), same burst: long tasks',
          value: burstSdk.longTasks.length,
          unit: 'count',
          note: longTaskNote([burstSdk]),
        },
      ],
      method:
        'Headless Chromium, pages bundled with esbuild (React production build) from 127.0.0.1. ' +
        '`useAgent(agent)` renders every message as text; per answer a new thread (new chat). A ' +
        'layout effect in the chat counts commits, a `requestAnimationFrame` loop counts frames, a ' +
        `\`PerformanceObserver\` (\`longtask\`) records tasks over ${LONG_TASK_MS} ms, from \`send\` until ` +
        'two frames after it resolved. Baseline in the same page: the same two paragraphs from plain ' +
        "React state, set once per animation frame, reading the same stream: in-page, the `Model`'s " +
        '`stream()` the agent is given, read directly (so its generator layer is on both sides). ' +
        'Streams: in-page (an in-page `Model` / generator ' +
        `yielding ${WORDS.toLocaleString('en-US')} words, 20 per task; ${IN_PAGE_PAIRS} interleaved pairs after one warm-up each: ` +
        'an answer lasts a few frames, so one late frame moves a single ratio by 0.2–0.3 and the median needs many pairs), ' +
        `and the scripted model server through \`openaiChatModel\` / the \`openai\` SDK, ${PACED_WORDS.toLocaleString('en-US')} ` +
        `words ${PACE_MS} ms apart (${PACED_PAIRS} interleaved pairs). Met when every useAgent answer has commits ≤ frames ` +
        'and all its text on screen, useAgent has no more long tasks than plain React on the same streams, ' +
        `its in-page answers take ≤ ${MAX_DURATION_RATIO}× plain React's time (median of paired ratios), and ` +
        "the burst's longest task is no longer than the SDK alone's.",
      notes,
    };
  },
};
