import type { ReactNode } from 'react';
import type { Interrupt } from './interrupt-types.ts';

/** Who is asking: the MCP server's name, else the local tool's. */
export function InterruptSource({ interrupt }: { interrupt: Interrupt }): ReactNode {
  return interrupt.server !== undefined ? (
    <>
      Server <strong className="sb-interrupt-server">{interrupt.server}</strong>
    </>
  ) : (
    <>
      Tool <strong className="sb-interrupt-tool">{interrupt.toolName}</strong>
    </>
  );
}
