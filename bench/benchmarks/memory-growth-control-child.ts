/**
 * Child process of benchmark 10, the control: the same traffic as `memory-growth-child.ts` with
 * no Switchboard code — the raw `@modelcontextprotocol/client` `Client` on the demo server's
 * 2026-07-28 endpoint and the `openai` SDK on the scripted model server, each run a streamed model
 * turn that calls `read_file`, the MCP `tools/call`, and a streamed turn with its result (three
 * POSTs, as an agent run makes). Run and sampled as ours is (`memory-heap-sampling.ts`), so that
 * its growth is what Node, undici and V8 grow under this traffic: per fetch, undici's
 * `httpNetworkFetch` makes async generators whose prototypes V8 lists on
 * `AsyncGenerator.prototype`, and that list's capacity grows in steps whoever fetches.
 */
// First: it sets fetch's keep-alive before anything fetches.
import { connectionsOpened, childUrls } from './memory-child-fetch.ts';
import { sampleRuns } from './memory-heap-sampling.ts';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import OpenAI from 'openai';
import type {
  ChatCompletionMessageParam,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';

/** The tools the agent of `memory-growth-child.ts` offers the model (its `toolFilter`). */
const OFFERED_TOOLS = ['read_file', 'get_weather'];
const PROMPT = 'What is in notes.txt?';

/**
 * The SDK's transport, handed no per-request signal. With one, it combines the signal with its
 * own long-lived one through `AbortSignal.any`, and Node 20 keeps a reference to every combined
 * signal on the long-lived one for the transport's life (~70 bytes a request): a leak of the SDK
 * on Node 20 that our session transport avoids the same way (`session-transport.ts`), which
 * would otherwise make the control grow by what this row is not about. Nothing here cancels a
 * request, so the signal would never be used.
 */
class NoRequestSignalTransport extends StreamableHTTPClientTransport {
  override send(
    message: Parameters<StreamableHTTPClientTransport['send']>[0],
    options?: Parameters<StreamableHTTPClientTransport['send']>[1],
  ): Promise<void> {
    if (options?.requestSignal === undefined) return super.send(message, options);
    const { requestSignal: _dropped, ...rest } = options;
    return super.send(message, rest);
  }
}

const client = new Client(
  { name: 'bench-raw-client', version: '0.0.0' },
  { versionNegotiation: { mode: 'auto' } },
);
await client.connect(new NoRequestSignalTransport(new URL(childUrls.mcpUrl)));
// Listed once, as the agent lists its server's tools once and keeps them.
const tools: ChatCompletionTool[] = (await client.listTools()).tools
  .filter((tool) => OFFERED_TOOLS.includes(tool.name))
  .map((tool) => ({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.inputSchema,
    },
  }));
if (tools.length !== OFFERED_TOOLS.length) throw new Error('the demo server lacks a tool');
// As `openaiChatModel` makes its client (no retries: a failed call fails the child).
const openai = new OpenAI({
  apiKey: 'not-needed',
  baseURL: `${childUrls.modelUrl}/v1`,
  maxRetries: 0,
});

/** One streamed model turn: its text and the tool calls its deltas assemble. */
async function modelTurn(
  messages: ChatCompletionMessageParam[],
): Promise<{ text: string; toolCalls: ChatCompletionMessageFunctionToolCall[] }> {
  const stream = await openai.chat.completions.create({
    model: 'tool-loop',
    messages,
    tools,
    stream: true,
  });
  let text = '';
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = [];
  for await (const chunk of stream) {
    const delta = chunk.choices[0]?.delta;
    text += delta?.content ?? '';
    for (const part of delta?.tool_calls ?? []) {
      const call = (toolCalls[part.index] ??= {
        id: '',
        type: 'function',
        function: { name: '', arguments: '' },
      });
      call.id += part.id ?? '';
      call.function.name += part.function?.name ?? '';
      call.function.arguments += part.function?.arguments ?? '';
    }
  }
  return { text, toolCalls };
}

async function oneRun(): Promise<void> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: PROMPT }];
  const first = await modelTurn(messages);
  const [call] = first.toolCalls;
  if (call === undefined || call.function.name !== 'read_file') {
    throw new Error(`the model did not call read_file: ${JSON.stringify(first)}`);
  }
  const result = await client.callTool({
    name: call.function.name,
    arguments: JSON.parse(call.function.arguments) as Record<string, unknown>,
  });
  const content = Array.isArray(result.content) ? result.content : [];
  const text = content
    .map((part: { type?: string; text?: string }) => (part.type === 'text' ? part.text : ''))
    .join('');
  if (result.isError === true || text === '') throw new Error('read_file failed');
  messages.push(
    { role: 'assistant', content: null, tool_calls: [call] },
    { role: 'tool', tool_call_id: call.id, content: text },
  );
  const answer = await modelTurn(messages);
  if (answer.toolCalls.length > 0 || answer.text === '') {
    throw new Error(`the model did not answer: ${JSON.stringify(answer)}`);
  }
}

await sampleRuns({
  label: 'memory-growth control',
  oneRun,
  kinds: {},
  connectionsOpened,
  modelRetries: () => 0,
});
await client.close();
