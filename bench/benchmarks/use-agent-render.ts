import type { Benchmark } from '../benchmark.ts';
import { withBrowserPage } from '../browser/chromium.ts';
import type { RenderTrial } from '../browser/pages/use-agent-page.tsx';
import { benchText } from '../servers/bench-text.ts';
import { summarize } from '../stats.ts';

const WORDS = 10_000;
const TRIALS = 5;
const LONG_TASK_MS = 50;

export const useAgentRenderBenchmark: Benchmark = {
  id: 7,
  key: 'use-agent-render',
  title: '`useAgent` rendering 10,000 streamed deltas in Chromium',
  baseline: 'animation frames elapsed meanwhile',
  target: `commits ≤ frames; no task over ${LONG_TASK_MS} ms`,
  async run({ servers, log }) {
    const expectedCharacters = benchText(WORDS).length;
    const trials: RenderTrial[] = [];
    await withBrowserPage(
      new URL('../browser/pages/use-agent-page.tsx', import.meta.url),
      async ({ page }) => {
        const trial = () =>
          page.evaluate(
            (options) =>
              (window.benchRenderTrial as NonNullable<Window['benchRenderTrial']>)(options),
            { modelUrl: servers.modelUrl, words: WORDS },
          );
        log('warm-up answer');
        await trial();
        for (let index = 0; index < TRIALS; index += 1) {
          log(`answer ${index + 1} of ${TRIALS}`);
          trials.push(await trial());
        }
      },
    );
    const ratios = summarize(trials.map((trial) => trial.commits / trial.frames));
    const longTasks = trials.flatMap((trial) => trial.longTasks);
    const longest = longTasks.length === 0 ? 0 : Math.max(...longTasks);
    const complete = trials.every(
      (trial) => trial.status === 'completed' && trial.renderedCharacters === expectedCharacters,
    );
    const commitsWithinFrames = trials.every((trial) => trial.commits <= trial.frames);
    const noLongTask = longTasks.length === 0;
    const notes: string[] = [];
    if (!complete) {
      notes.push(
        `Not every answer completed with all ${expectedCharacters} characters on screen: ` +
          trials.map((trial) => `${trial.status}/${trial.renderedCharacters}`).join(', '),
      );
    }
    return {
      verdict: commitsWithinFrames && noLongTask && complete ? 'met' : 'missed',
      headline:
        `commits/frames ×${ratios.median.toFixed(3)} (min–max ${ratios.min.toFixed(3)}–${ratios.max.toFixed(3)}); ` +
        `tasks > ${LONG_TASK_MS} ms: ${longTasks.length} in ${TRIALS} answers` +
        (longTasks.length === 0 ? '' : ` (longest ${longest.toFixed(0)} ms)`),
      figures: [
        { label: 'Commits / animation frames, per answer', value: ratios, unit: 'ratio' },
        {
          label: 'React commits per answer',
          value: summarize(trials.map((trial) => trial.commits)),
          unit: 'count',
        },
        {
          label: 'Animation frames per answer',
          value: summarize(trials.map((trial) => trial.frames)),
          unit: 'count',
        },
        {
          label: 'Deltas per commit',
          value: summarize(trials.map((trial) => WORDS / trial.commits)),
          unit: '',
        },
        {
          label: `Long tasks (> ${LONG_TASK_MS} ms), all answers`,
          value: longTasks.length,
          unit: 'count',
          note:
            longTasks.length === 0
              ? 'none'
              : `durations ${longTasks.map((duration) => duration.toFixed(0)).join(', ')} ms`,
        },
        {
          label: 'Answers complete on screen',
          value: `${trials.filter((trial) => trial.renderedCharacters === expectedCharacters).length} of ${TRIALS} (${expectedCharacters} characters each)`,
          unit: '',
        },
        {
          label: 'For scale only: answer duration',
          value: summarize(trials.map((trial) => trial.ms)),
          unit: 'ms',
        },
      ],
      method:
        'Headless Chromium, page bundled with esbuild (React production build) and served from ' +
        '127.0.0.1: `useAgent(agent)` rendering every message as text, `openaiChatModel` streaming ' +
        `a ${WORDS.toLocaleString('en-US')}-word answer (one word per delta, no delay) from the ` +
        'scripted model server. Per answer: a new thread (new chat), then a layout effect in the chat counts ' +
        'commits, a `requestAnimationFrame` loop counts frames and a `PerformanceObserver` ' +
        `(\`longtask\`) records tasks over ${LONG_TASK_MS} ms, from \`send\` until two frames after ` +
        `it resolved. One warm-up answer, then ${TRIALS} measured.`,
      notes,
    };
  },
};
