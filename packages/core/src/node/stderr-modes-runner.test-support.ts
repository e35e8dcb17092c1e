// Run by stdio-stderr.test.ts as its own Node process (through tsx), so the test can see what
// reaches this process's stderr: for each mode in turn it starts the stdio server at argv[2]
// with `stderr` set to that mode, has it log `marker-<mode>` through its `log` tool, and closes
// it. Lines `onStderr` reads (mode `pipe`) are printed to stdout as `piped: <line>`.
import { nodeMcpServer } from './mcp-server.ts';
import type { NodeMcpServerOptions } from './mcp-server.ts';

const serverPath = process.argv[2];
if (serverPath === undefined) throw new Error('usage: stderr-modes-runner <server.mjs>');

const modes: Partial<NodeMcpServerOptions>[] = [
  { stderr: 'inherit' },
  { stderr: 'ignore' },
  { stderr: 'pipe', onStderr: (line: string) => process.stdout.write(`piped: ${line}\n`) },
];
for (const mode of modes) {
  const name = String((mode as { stderr: string }).stderr);
  const server = nodeMcpServer({
    name,
    command: process.execPath,
    args: [serverPath],
    ...mode,
  } as NodeMcpServerOptions);
  try {
    const output = await server.callTool('log', { text: `marker-${name}\n` });
    process.stdout.write(`${name}: ${output.text}\n`);
  } finally {
    await server.close();
  }
}
