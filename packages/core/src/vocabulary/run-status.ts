/**
 * Where a run stands (`RunRecord.status`). In the vocabulary because errors speak it too: a
 * `run_claimed` error says what the run's status is now.
 */
export type RunStatus = 'running' | 'completed' | 'paused' | 'failed' | 'cancelled';
