import type { McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { ApprovalPolicy, McpServer, ToolOutput } from '@switchboard/core';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ApprovalDialog } from '../approval-dialog.tsx';
import { classNames } from '../class-names.ts';
import { UrlElicitation } from '../url-elicitation.tsx';
import { startMcpAppHost, type McpAppConsent, type McpAppHost } from './mcp-app-host.ts';
import type { McpAppThread } from './mcp-app-thread.ts';
import { proxyOriginProblem, readView, type McpAppViewResource } from './read-view.ts';

/** Props of {@link McpAppView}. */
export interface McpAppViewProps {
  /** The server the tool belongs to; the view reads and calls through it, and nothing else. */
  server: McpServer;
  /** The tool call this view renders. */
  callId: string;
  /**
   * The provider-facing name of the tool whose result this is (`ChatToolCallPart.toolName`):
   * with `thread`, it labels what the view asks for. Default `resourceUri`.
   */
  toolName?: string;
  /**
   * The thread the view is shown in (`useAgent()`'s result, or an `AgentChat`): its tool calls
   * are recorded there and wait for approval as the model's do (the thread's `<ApprovalDialog>`,
   * marked as requested by the view), its `ui/update-model-context` is kept with the thread for
   * the model, and a confirmed `ui/message` is sent as the user's message (unless `onMessage` /
   * `onModelContext` are given). Absent (e.g. a tool runner), calls are approved in the view
   * with `approvalPolicy`.
   */
  thread?: McpAppThread;
  /** The tool's `_meta.ui.resourceUri` (`ChatToolCallPart.ui.resourceUri`). */
  resourceUri: string;
  /** The call's arguments (sent once as `ui/notifications/tool-input`). */
  input?: unknown;
  /** The call's output once it settled (sent once as `ui/notifications/tool-result`). */
  output?: ToolOutput;
  /** The call ended without a result (stopped, declined): `ui/notifications/tool-cancelled`. */
  cancelled?: boolean;
  /**
   * The sandbox proxy page (`sandboxProxyHtml()`), served from another origin than this page's.
   * On the same origin the view is refused and the call's text output shown instead.
   */
  proxyUrl: string | URL;
  /**
   * Decides which of the view's tool calls wait for the user, as the agent's `approvalPolicy`
   * does for the model's (pass the same one). Default `destructiveToolsNeedApproval`. The tool's
   * `needsApproval` (`approvalRequiredTools`) applies too.
   */
  approvalPolicy?: ApprovalPolicy;
  /** Passed to the server's headers function and to the policy. */
  runContext?: unknown;
  /** `ui/message`, after the user confirmed it: send `text` as the user's message. Absent: refused. */
  onMessage?: (text: string) => void;
  /**
   * `ui/update-model-context`: keep it as untrusted context from the app (label it so when the
   * model sees it). Absent: refused.
   */
  onModelContext?: (context: { text: string; structuredContent?: Record<string, unknown> }) => void;
  /** `light` or `dark`; default from `prefers-color-scheme`. */
  theme?: 'light' | 'dark';
  /** Largest height the view may grow to, in CSS pixels. Default 600. */
  maxHeight?: number;
  /** Extra class for the root element (`sb-mcp-app`). */
  className?: string;
}

type ViewState =
  | { kind: 'loading' }
  | { kind: 'ready'; resource: McpAppViewResource }
  | { kind: 'fallback'; reason: string };

interface PendingConsent {
  consent: McpAppConsent;
  answer(allowed: boolean): void;
}

/**
 * Renders an MCP Apps view (`io.modelcontextprotocol/ui`, stable 2026-01-26) for one tool call,
 * wired straight to the in-page `McpServer` through `@modelcontextprotocol/ext-apps`' `AppBridge`
 * (docs/mcp-apps.md). An outer frame loads the sandbox proxy from `proxyUrl` (another origin,
 * `sandbox="allow-scripts allow-same-origin"`); the proxy loads the view in an inner
 * `allow-scripts`-only frame by `srcdoc` under the CSP built from its declared domains. The
 * view's tool calls reach only its own server's tools whose visibility names `app`, and wait for
 * the user's approval as the agent's policy says; links open after the user's click; messages
 * enter only after the user confirms. When the view cannot be shown (same-origin proxy, a
 * resource that is not a view) the call's text output is shown instead, with the reason.
 */
export function McpAppView(props: McpAppViewProps): ReactNode {
  const { server, resourceUri, proxyUrl, output, maxHeight = 600, className } = props;
  const originProblem = useMemo(
    () => proxyOriginProblem(proxyUrl, window.location.origin),
    [proxyUrl],
  );
  const [state, setState] = useState<{ uri: string; view: ViewState } | undefined>(undefined);
  useEffect(() => {
    if (originProblem !== undefined) return;
    const controller = new AbortController();
    readView(server, resourceUri, controller.signal).then(
      (resource) => setState({ uri: resourceUri, view: { kind: 'ready', resource } }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        const reason = error instanceof Error ? error.message : String(error);
        setState({
          uri: resourceUri,
          view: { kind: 'fallback', reason: `The app's view could not be loaded: ${reason}` },
        });
      },
    );
    return () => controller.abort();
  }, [server, resourceUri, originProblem]);

  const shown: ViewState =
    originProblem !== undefined
      ? { kind: 'fallback', reason: originProblem }
      : state?.uri === resourceUri
        ? state.view
        : { kind: 'loading' };
  if (shown.kind === 'fallback') {
    return (
      <div className={classNames('sb-mcp-app', 'sb-mcp-app--fallback', className)}>
        <p className="sb-mcp-app-note" role="note">
          {shown.reason}
        </p>
        {output !== undefined && <pre className="sb-mcp-app-text">{output.text}</pre>}
      </div>
    );
  }
  if (shown.kind === 'loading') {
    return (
      <div className={classNames('sb-mcp-app', 'sb-mcp-app--loading', className)} aria-busy="true">
        Loading the app…
      </div>
    );
  }
  return <McpAppFrame {...props} resource={shown.resource} maxHeight={maxHeight} />;
}

function McpAppFrame(
  props: McpAppViewProps & { resource: McpAppViewResource; maxHeight: number },
): ReactNode {
  const { server, callId, resource, proxyUrl, maxHeight, className } = props;
  const frameRef = useRef<HTMLIFrameElement>(null);
  const hostRef = useRef<McpAppHost | undefined>(undefined);
  const [height, setHeight] = useState(120);
  const [consents, setConsents] = useState<PendingConsent[]>([]);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const latest = useRef(props);
  useEffect(() => {
    latest.current = props;
  });

  const proxy = useMemo(() => {
    const url = new URL(proxyUrl, window.location.origin);
    url.searchParams.set('host', window.location.origin);
    return url;
  }, [proxyUrl]);

  useEffect(() => {
    const frame = frameRef.current;
    const target = frame?.contentWindow;
    if (frame === null || target === null || target === undefined) return;
    let closed = false;
    const hostContext = (): McpUiHostContext => ({
      theme:
        latest.current.theme ??
        (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'),
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      containerDimensions: { width: frame.clientWidth, maxHeight },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: 'web',
      userAgent: 'switchboard',
    });
    const askUser = (consent: McpAppConsent): Promise<boolean> =>
      new Promise<boolean>((resolve) => {
        const pending: PendingConsent = {
          consent,
          answer: (allowed) => {
            setConsents((queue) => queue.filter((entry) => entry !== pending));
            resolve(allowed);
          },
        };
        setConsents((queue) => [...queue, pending]);
      });
    const waits = new AbortController();
    const thread = props.thread;
    const viewRef = { server: server.name, toolName: props.toolName ?? props.resourceUri, callId };
    const onMessage =
      props.onMessage === undefined
        ? thread === undefined
          ? undefined
          : (text: string) => {
              void latest.current.thread?.send(text).catch(() => {
                // A refused send (a run in progress) shows in the chat's own status.
              });
            }
        : (text: string) => latest.current.onMessage?.(text);
    const onModelContext =
      props.onModelContext === undefined
        ? thread === undefined
          ? undefined
          : (context: { text: string; structuredContent?: Record<string, unknown> }) => {
              void latest.current.thread
                ?.updateModelContextFromApp({ view: viewRef, ...context })
                .catch(() => undefined);
            }
        : (context: { text: string; structuredContent?: Record<string, unknown> }) =>
            latest.current.onModelContext?.(context);
    const starting = startMcpAppHost({
      server,
      frame: target,
      proxyOrigin: proxy.origin,
      html: resource.html,
      csp: resource.csp,
      hostContext: hostContext(),
      ...(props.approvalPolicy === undefined ? {} : { approvalPolicy: props.approvalPolicy }),
      ...(props.runContext === undefined ? {} : { runContext: props.runContext }),
      ...(thread === undefined
        ? {}
        : {
            callInThread: (name: string, args: Record<string, unknown>) =>
              thread.callToolFromApp(
                {
                  view: viewRef,
                  name,
                  arguments: args,
                  ...(props.runContext === undefined ? {} : { runContext: props.runContext }),
                },
                { signal: waits.signal },
              ),
          }),
      askUser,
      ...(onMessage === undefined ? {} : { onMessage }),
      ...(onModelContext === undefined ? {} : { onModelContext }),
      onSize: ({ height: viewHeight }) => {
        if (viewHeight !== undefined) setHeight(Math.min(Math.max(viewHeight, 1), maxHeight));
      },
      onInitialized: () => undefined,
    });
    starting.then(
      (host) => {
        if (closed) {
          void host.close();
          return;
        }
        hostRef.current = host;
        deliver(host, latest.current);
        // Only now: the transport listens before the proxy can say it is ready.
        frame.src = proxy.href;
      },
      (error: unknown) => setFailure(error instanceof Error ? error.message : String(error)),
    );
    const resize = new ResizeObserver(() => hostRef.current?.setHostContext(hostContext()));
    resize.observe(frame);
    return () => {
      closed = true;
      waits.abort();
      resize.disconnect();
      const host = hostRef.current;
      hostRef.current = undefined;
      void host?.close();
    };
    // One bridge per view and resource; later props reach it through `latest` and `deliver`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [server, resource, proxy, maxHeight, callId]);

  const { input, output, cancelled } = props;
  useEffect(() => {
    const host = hostRef.current;
    if (host === undefined) return;
    deliver(host, {
      input,
      ...(output === undefined ? {} : { output }),
      ...(cancelled === undefined ? {} : { cancelled }),
    });
  }, [input, output, cancelled]);

  const current = consents[0];
  return (
    <div className={classNames('sb-mcp-app', className)} data-call-id={callId}>
      <iframe
        ref={frameRef}
        className="sb-mcp-app-frame"
        title={`App view ${resource === undefined ? '' : props.resourceUri}`}
        sandbox="allow-scripts allow-same-origin"
        referrerPolicy="origin"
        style={{ height: `${height}px` }}
      />
      {failure !== undefined && (
        <p className="sb-mcp-app-note" role="alert">
          The app could not start: {failure}
        </p>
      )}
      {current !== undefined && (
        <ConsentView pending={current} serverName={server.name} callId={callId} />
      )}
    </div>
  );
}

/** Input, result and cancellation in the spec's order (the host keeps each to once). */
function deliver(
  host: McpAppHost,
  props: Pick<McpAppViewProps, 'input' | 'output' | 'cancelled'>,
): void {
  if (props.input !== undefined && typeof props.input === 'object' && props.input !== null) {
    host.sendInput(props.input as Record<string, unknown>);
  }
  if (props.output !== undefined) host.sendResult(props.output);
  else if (props.cancelled === true) host.sendCancelled('The tool call ended without a result.');
}

function ConsentView({
  pending,
  serverName,
  callId,
}: {
  pending: PendingConsent;
  serverName: string;
  callId: string;
}): ReactNode {
  const { consent, answer } = pending;
  if (consent.kind === 'tool') {
    return (
      <ApprovalDialog
        className="sb-mcp-app-consent"
        interrupt={{
          callId: `${callId}:app`,
          toolName: consent.toolName,
          server: serverName,
          arguments: consent.arguments,
          mode: 'approval',
          message: 'Requested by the app’s view, not by the model.',
          ...(consent.tool.annotations === undefined
            ? {}
            : { annotations: consent.tool.annotations }),
        }}
        onResolve={(action) => answer(action === 'approve')}
      />
    );
  }
  if (consent.kind === 'link') {
    return (
      <UrlElicitation
        className="sb-mcp-app-consent"
        interrupt={{
          callId: `${callId}:link`,
          toolName: 'ui/open-link',
          server: serverName,
          mode: 'url',
          arguments: {},
          url: consent.url,
          message: 'The app’s view asks to open this link.',
        }}
        onResolve={(action) => answer(action === 'approve')}
      />
    );
  }
  return (
    <div
      className="sb-interrupt sb-mcp-app-consent"
      role="dialog"
      aria-label="Message from the app"
    >
      <p>The app’s view wants to send this as your message:</p>
      <blockquote className="sb-mcp-app-message">{consent.text}</blockquote>
      <div className="sb-actions">
        <button type="button" className="sb-button sb-button--primary" onClick={() => answer(true)}>
          Send as my message
        </button>
        <button type="button" className="sb-button" onClick={() => answer(false)}>
          Discard
        </button>
      </div>
    </div>
  );
}
