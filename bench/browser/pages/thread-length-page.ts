/**
 * Browser page of benchmark 12: run start against thread length with `IndexedDbHistoryStore`
 * (the same trials as the Node stores, bench/thread-length/thread-length-trial.ts).
 */
import { Agent, IndexedDbHistoryStore } from '@switchboard/core';
import {
  RecordingModel,
  seedThread,
  timeRunStart,
  warmAgent,
} from '../../thread-length/thread-length-trial.ts';

/** Per size: warm and cold run starts (ms) and the items of the model request. */
export interface StartSample {
  warm: Record<number, number[]>;
  cold: Record<number, number[]>;
  items: Record<number, number>;
}

declare global {
  interface Window {
    benchReady?: boolean;
    benchThreadLength?: (options: {
      databaseName: string;
      sizes: number[];
      /** Unmeasured starts per size before the trials (JIT warm-up). */
      warmUpStarts: number;
      warmTrials: number;
      coldTrials: number;
    }) => Promise<StartSample>;
  }
}

/** Sizes in a rotating order per trial, as on the Node side. */
function orderOf(sizes: readonly number[], trial: number): number[] {
  const shift = trial % sizes.length;
  const rotated = [...sizes.slice(shift), ...sizes.slice(0, shift)];
  return trial % 2 === 0 ? rotated : rotated.reverse();
}

window.benchThreadLength = async ({
  databaseName,
  sizes,
  warmUpStarts,
  warmTrials,
  coldTrials,
}) => {
  const history = new IndexedDbHistoryStore({ databaseName });
  const sample: StartSample = { warm: {}, cold: {}, items: {} };
  const leaves = new Map<number, string>();
  const warm = new Map<number, Awaited<ReturnType<typeof warmAgent>>>();
  for (const size of sizes) {
    leaves.set(size, await seedThread(history, `idb-${size}`, size));
    const agent = await warmAgent(history, `idb-${size}`);
    warm.set(size, agent);
    for (let start = 0; start < warmUpStarts; start += 1) {
      await timeRunStart(agent.agent, agent.model, `idb-${size}`, leaves.get(size)!);
    }
    sample.warm[size] = [];
    sample.cold[size] = [];
  }
  for (let trial = 0; trial < warmTrials; trial += 1) {
    for (const size of orderOf(sizes, trial)) {
      const { agent, model } = warm.get(size)!;
      const result = await timeRunStart(agent, model, `idb-${size}`, leaves.get(size)!);
      if (result.status !== 'completed') throw new Error(`run ${result.status}`);
      sample.warm[size]!.push(result.ms);
      sample.items[size] = result.items;
    }
  }
  for (let trial = 0; trial < coldTrials; trial += 1) {
    for (const size of orderOf(sizes, trial)) {
      const model = new RecordingModel();
      const agent = new Agent({ name: 'bench', model, history });
      sample.cold[size]!.push(
        (await timeRunStart(agent, model, `idb-${size}`, leaves.get(size)!)).ms,
      );
    }
  }
  history.close();
  return sample;
};

window.benchReady = true;
