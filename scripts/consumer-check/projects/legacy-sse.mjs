// Run under plain node (and type-checked with checkJs) from the installed core tarball: a server
// reached over legacy HTTP+SSE (2024-11-05) through the opt-in `@switchboard/core/legacy-sse`
// entry. Without it, `transport: 'sse'` is refused at once with the import line to add.
import { isSwitchboardError, mcpServer } from '@switchboard/core';
import { legacySseTransport } from '@switchboard/core/legacy-sse';

const url = process.env.MCP_SSE_URL;
if (url === undefined) throw new Error('MCP_SSE_URL is not set');

try {
  mcpServer({ url, name: 'legacy', transport: 'sse' });
  throw new Error("transport 'sse' without legacySse was accepted");
} catch (error) {
  const importLine = "import { legacySseTransport } from '@switchboard/core/legacy-sse'";
  if (!isSwitchboardError(error, 'invalid_input') || !error.message.includes(importLine)) {
    throw error;
  }
  console.log('without legacySse: invalid_input, naming the import');
}

const server = mcpServer({ url, name: 'legacy', transport: 'sse', legacySse: legacySseTransport });
try {
  const output = await server.callTool('get_weather', { city: 'Oslo' });
  const { transport, protocolEra } = server.getSnapshot();
  if (transport !== 'sse' || output.isError === true || !output.text.includes('Oslo')) {
    throw new Error(`legacy SSE call: transport ${transport}, output ${output.text}`);
  }
  console.log(`legacy SSE: get_weather answered over ${transport} (${protocolEra} era)`);
} finally {
  await server.close();
}
