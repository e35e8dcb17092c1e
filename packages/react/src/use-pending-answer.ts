import { useCallback, useRef, useState } from 'react';
import type { ResolutionAction, ResolveHandler } from './interrupt-types.ts';

/**
 * Sends one answer at a time: `answer()` calls `onResolve` unless an answer is already on its
 * way, and `pending` stays true until a returned promise settles (a second click is ignored even
 * before React re-renders).
 */
export function usePendingAnswer(onResolve: ResolveHandler): {
  pending: boolean;
  answer(action: ResolutionAction, content?: Record<string, unknown>): void;
} {
  const [pending, setPending] = useState(false);
  const busy = useRef(false);
  const answer = useCallback(
    (action: ResolutionAction, content?: Record<string, unknown>) => {
      if (busy.current) return;
      busy.current = true;
      setPending(true);
      const done = () => {
        busy.current = false;
        setPending(false);
      };
      let result: unknown;
      try {
        result = content === undefined ? onResolve(action) : onResolve(action, content);
      } catch (error) {
        done();
        throw error;
      }
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') {
        Promise.resolve(result).then(done, done);
      } else {
        done();
      }
    },
    [onResolve],
  );
  return { pending, answer };
}
