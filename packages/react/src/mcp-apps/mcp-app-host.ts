import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { CallToolResult, ReadResourceResult } from '@modelcontextprotocol/client';
import {
  isSwitchboardError,
  SwitchboardError,
  type ApprovalPolicy,
  type McpResourceContents,
  type McpServer,
  type ToolOutput,
} from '@switchboard/core';
import { appCallNeedsApproval } from './app-tool-approval.ts';
import { toCallToolResult } from './call-tool-result.ts';
import { ProxyFrameTransport } from './proxy-frame-transport.ts';
import { sanitizeCspDomains } from './view-csp.ts';

/** What the view asks the user to allow; the host UI shows it and answers. */
export type McpAppConsent =
  | {
      kind: 'tool';
      toolName: string;
      arguments: Record<string, unknown>;
      tool: McpToolDescriptorLike;
    }
  | { kind: 'link'; url: string }
  | { kind: 'message'; text: string };

type McpToolDescriptorLike = Awaited<ReturnType<McpServer['appTool']>>;

/** Everything {@link startMcpAppHost} needs. */
export interface McpAppHostOptions {
  server: McpServer;
  /** The proxy frame's window and origin. */
  frame: Window;
  proxyOrigin: string;
  /** The view's HTML and its declared `_meta.ui.csp`. */
  html: string;
  csp: unknown;
  hostContext: McpUiHostContext;
  approvalPolicy?: ApprovalPolicy;
  runContext?: unknown;
  /**
   * Makes a call the visibility check allowed in the view's thread (`McpAppThread`): recorded
   * there and held for approval like the model's calls. Absent (a view outside any thread, such
   * as a tool runner's): `approvalPolicy` decides and `askUser` asks, then `server.callTool`.
   */
  callInThread?: (name: string, args: Record<string, unknown>) => Promise<ToolOutput>;
  /** Asks the user; resolves true when they allow it. */
  askUser(consent: McpAppConsent): Promise<boolean>;
  /** `ui/message`, after the user confirmed; absent: refused. */
  onMessage?: (text: string) => void;
  /** `ui/update-model-context`; absent: refused. */
  onModelContext?: (context: { text: string; structuredContent?: Record<string, unknown> }) => void;
  onSize(size: { width?: number; height?: number }): void;
  /** The view finished `ui/initialize` (nothing is sent to it before). */
  onInitialized(): void;
}

/** A running host for one view: send it the call's input, result or cancellation. */
export interface McpAppHost {
  bridge: AppBridge;
  /** `ui/notifications/tool-input`, at most once, and never after the result. */
  sendInput(args: Record<string, unknown>): void;
  /** `ui/notifications/tool-result`, at most once (after the input, when there was one). */
  sendResult(output: ToolOutput): void;
  /** `ui/notifications/tool-cancelled`. */
  sendCancelled(reason: string): void;
  setHostContext(context: McpUiHostContext): void;
  close(): Promise<void>;
}

const refused = (message: string): ProtocolError =>
  new ProtocolError(ProtocolErrorCode.InvalidRequest, message);

/**
 * Wires `@modelcontextprotocol/ext-apps`' `AppBridge` (host side) to the in-page `McpServer`,
 * with no server route: the view's `tools/call` and `resources/read` go to its own server only,
 * through the visibility check and the approval policy; `ui/open-link`, `ui/message` and
 * `ui/update-model-context` go through the user or the app; what this host does not support
 * (sampling, downloads) is refused with a JSON-RPC error, never ignored.
 */
export async function startMcpAppHost(options: McpAppHostOptions): Promise<McpAppHost> {
  const { server } = options;
  const bridge = new AppBridge(
    null,
    { name: 'switchboard', version: '0.1.0' },
    {
      openLinks: {},
      serverTools: {},
      serverResources: {},
      logging: {},
      sandbox: { csp: sanitizeCspDomains(options.csp) },
      ...(options.onMessage === undefined ? {} : { message: { text: {} } }),
      ...(options.onModelContext === undefined ? {} : { updateModelContext: { text: {} } }),
    },
    { hostContext: options.hostContext },
  );
  let initialized = false;
  let inputSent = false;
  let resultSent = false;
  const queue: (() => void)[] = [];
  const whenInitialized = (send: () => void): void => {
    if (initialized) send();
    else queue.push(send);
  };

  bridge.onsandboxready = () => {
    void bridge.sendSandboxResourceReady({
      html: options.html,
      csp: sanitizeCspDomains(options.csp),
    });
  };
  bridge.oninitialized = () => {
    initialized = true;
    options.onInitialized();
    for (const send of queue.splice(0)) send();
  };
  bridge.onsizechange = (size) => options.onSize(size);
  bridge.oncalltool = async (params): Promise<CallToolResult> => {
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    let tool: McpToolDescriptorLike;
    try {
      tool = await server.appTool(params.name);
    } catch (error) {
      throw refused(
        isSwitchboardError(error, 'tool_not_found')
          ? `Refused: this app may not call "${params.name}".`
          : error instanceof Error
            ? error.message
            : String(error),
      );
    }
    if (options.callInThread !== undefined) {
      return toCallToolResult(await options.callInThread(params.name, args));
    }
    const ask = await appCallNeedsApproval(tool, args, options.approvalPolicy, options.runContext);
    if (ask) {
      const allowed = await options.askUser({
        kind: 'tool',
        toolName: params.name,
        arguments: args,
        tool,
      });
      if (!allowed) {
        return { content: [{ type: 'text', text: 'The user declined this call.' }], isError: true };
      }
    }
    const output = await server.callTool(params.name, args, {
      ...(options.runContext === undefined ? {} : { runContext: options.runContext }),
    });
    return toCallToolResult(output);
  };
  bridge.onreadresource = async (params): Promise<ReadResourceResult> =>
    toReadResourceResult(params.uri, await server.readResource(params.uri));
  bridge.onlistresources = async () => ({ resources: [] });
  bridge.onopenlink = async ({ url }) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw refused('Refused: not a valid URL.');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw refused('Refused: only http and https links can be opened.');
    }
    const allowed = await options.askUser({ kind: 'link', url: parsed.href });
    return allowed ? {} : { isError: true };
  };
  bridge.onmessage = async (params) => {
    const onMessage = options.onMessage;
    if (onMessage === undefined) throw refused('Refused: this host takes no messages from apps.');
    const text = params.content
      .map((block) => (block.type === 'text' ? block.text : ''))
      .join('\n')
      .trim();
    if (text === '') throw refused('Refused: only text messages are supported.');
    const allowed = await options.askUser({ kind: 'message', text });
    if (!allowed) return { isError: true };
    onMessage(text);
    return {};
  };
  bridge.onupdatemodelcontext = async (params) => {
    const onModelContext = options.onModelContext;
    if (onModelContext === undefined) throw refused('Refused: this host keeps no model context.');
    const text = (params.content ?? [])
      .map((block) => (block.type === 'text' ? block.text : ''))
      .join('\n');
    onModelContext({
      text,
      ...(params.structuredContent === undefined
        ? {}
        : { structuredContent: params.structuredContent }),
    });
    return {};
  };
  bridge.onrequestdisplaymode = async () => ({ mode: 'inline' });
  bridge.oncreatesamplingmessage = async () => {
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      'Sampling from views is not supported.',
    );
  };
  bridge.ondownloadfile = async () => {
    throw new ProtocolError(
      ProtocolErrorCode.MethodNotFound,
      'Downloads from views are not supported.',
    );
  };
  bridge.onloggingmessage = () => {
    // Accepted (the host declares `logging`), not shown: view logs are untrusted text.
  };

  await bridge.connect(new ProxyFrameTransport(options.frame, options.proxyOrigin));

  return {
    bridge,
    sendInput(args) {
      if (inputSent || resultSent) return;
      inputSent = true;
      whenInitialized(() => void bridge.sendToolInput({ arguments: args }));
    },
    sendResult(output) {
      if (resultSent) return;
      resultSent = true;
      whenInitialized(() => void bridge.sendToolResult(toCallToolResult(output)));
    },
    sendCancelled(reason) {
      whenInitialized(() => void bridge.sendToolCancelled({ reason }));
    },
    setHostContext(context) {
      bridge.setHostContext(context);
    },
    async close() {
      if (initialized) {
        await bridge.teardownResource({}, { timeout: 1000 }).catch(() => undefined);
      }
      await bridge.close();
    },
  };
}

/**
 * Our `resources/read` bodies back in the wire shape the view expects. A body too large to keep
 * (`omitted`) is refused rather than passed on empty.
 */
function toReadResourceResult(uri: string, contents: McpResourceContents[]): ReadResourceResult {
  return {
    contents: contents.map((body) => {
      if ('omitted' in body) {
        throw new SwitchboardError(
          'invalid_response',
          `${uri} is too large to read (${body.size} bytes).`,
        );
      }
      const { size: _size, ...wire } = body;
      return wire;
    }),
  };
}
