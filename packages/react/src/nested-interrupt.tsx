import type { NestedInterrupt } from '@switchboard/core';
import type { ReactNode } from 'react';
import type { Interrupt } from './interrupt-types.ts';

/**
 * What a person is asked about when a sub-agent's call waits (`Interrupt.nested`, from
 * `Agent.asTool`): the innermost held call — its tool, server, arguments, annotations and
 * request — under the outer `callId`, which is the one the answer resolves. Any other interrupt
 * is returned as it is.
 */
export function innermostInterrupt(interrupt: Interrupt): Interrupt {
  let inner: NestedInterrupt | undefined = interrupt.nested;
  if (inner === undefined) return interrupt;
  while (inner.nested !== undefined) inner = inner.nested;
  const { agent: _agent, threadId: _threadId, runId: _runId, ...shown } = inner;
  return { ...shown, callId: interrupt.callId };
}

/**
 * The path of a sub-agent's interrupt, outermost first: "Asked inside researcher › cleaner",
 * one entry per nested run (its agent's name). Nothing for other interrupts.
 */
export function NestedInterruptPath({ interrupt }: { interrupt: Interrupt }): ReactNode {
  const agents: string[] = [];
  for (let inner = interrupt.nested; inner !== undefined; inner = inner.nested) {
    agents.push(inner.agent);
  }
  if (agents.length === 0) return null;
  return (
    <p className="sb-interrupt-path" aria-label="Asked inside">
      Asked inside{' '}
      {agents.map((agent, index) => (
        <span key={index}>
          {index > 0 && ' › '}
          <strong className="sb-interrupt-agent">{agent}</strong>
        </span>
      ))}
    </p>
  );
}
