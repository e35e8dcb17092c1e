import Form from '@rjsf/core';
import type { RJSFSchema } from '@rjsf/utils';
import validator from '@rjsf/validator-ajv8';
import {
  type Interrupt,
  type McpAuthorizeOutcome,
  type McpToolDescriptor,
  type ToolOutput,
  type ToolProgress,
} from '@switchboard/core';
import { InterruptView, ToolProgressBar, type ResolutionAction } from '@switchboard/react';
import { useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { runTool } from '../run-tool.ts';
import type { ServerRegistry } from '../server-registry.ts';
import { MarkdownText } from './markdown-text.tsx';
import { McpAppSlot } from './mcp-app-slot.tsx';
import { formatArguments, ToolOutputView } from './tool-output-view.tsx';
import { describeSignInFailure } from '../sign-in-failure.ts';

/** Which tool the runner shows. */
export interface RunnerTarget {
  serverId: string;
  toolName: string;
}

interface PendingQuestion {
  interrupt: Interrupt;
  answer: (action: ResolutionAction, content?: Record<string, unknown>) => void;
}

interface Outcome {
  /** This run's id (a view is mounted per run). */
  callId: string;
  output: ToolOutput;
  durationMs: number;
  args: Record<string, unknown>;
}

/**
 * Calls any tool directly, without a model: a form generated from the tool's `inputSchema`
 * (`@rjsf/core` with the ajv8 validator), a live progress bar, the server's questions (forms,
 * URLs) shown with `InterruptView`, Stop, and the result as in the chat. A call an OAuth server
 * refuses for want of a sign-in (or of a scope: step-up) offers "Connect and run again".
 */
export function ToolRunner({
  registry,
  target,
  onTargetChange,
}: {
  registry: ServerRegistry;
  target: RunnerTarget | undefined;
  onTargetChange: (target: RunnerTarget | undefined) => void;
}) {
  const { entries } = useSyncExternalStore(
    registry.subscribe,
    registry.getSnapshot,
    registry.getSnapshot,
  );
  const entry = entries.find((candidate) => candidate.config.id === target?.serverId) ?? entries[0];
  const tools = entry?.state.tools ?? [];
  const tool = tools.find((candidate) => candidate.originalName === target?.toolName) ?? tools[0];

  return (
    <div className="runner" data-testid="tool-runner">
      <p className="panel__note">
        Call any tool directly, no model involved. Progress, forms and links from the server show
        here as they would in the chat.
      </p>
      <div className="runner__pick">
        <label className="field">
          <span className="field__label">Server</span>
          <select
            value={entry?.config.id ?? ''}
            data-testid="runner-server"
            onChange={(event) => onTargetChange({ serverId: event.target.value, toolName: '' })}
          >
            {entries.map((candidate) => (
              <option key={candidate.config.id} value={candidate.config.id}>
                {candidate.config.name}
                {candidate.state.status === 'error' ? ' (not connected)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field__label">Tool</span>
          <select
            value={tool?.originalName ?? ''}
            disabled={tools.length === 0}
            data-testid="runner-tool"
            onChange={(event) =>
              entry !== undefined &&
              onTargetChange({ serverId: entry.config.id, toolName: event.target.value })
            }
          >
            {tools.length === 0 && <option value="">No tools listed</option>}
            {tools.map((candidate) => (
              <option key={candidate.name} value={candidate.originalName}>
                {candidate.originalName}
                {candidate.title === undefined ? '' : ` — ${candidate.title}`}
              </option>
            ))}
          </select>
        </label>
      </div>
      {entry !== undefined && tool !== undefined && (
        <ToolForm
          // Another tool starts with a fresh form and no result.
          key={`${entry.config.id}:${tool.name}`}
          tool={tool}
          serverName={entry.config.name}
          run={(args, handlers) => runTool(entry.server, tool, args, handlers)}
          {...(entry.config.auth === 'oauth'
            ? { authorize: () => registry.authorize(entry.config.id) }
            : {})}
        />
      )}
    </div>
  );
}

function ToolForm({
  tool,
  serverName,
  run,
  authorize,
}: {
  tool: McpToolDescriptor;
  /** The server's name, for error sentences. */
  serverName: string;
  run: (
    args: Record<string, unknown>,
    handlers: Parameters<typeof runTool>[3],
  ) => Promise<ToolOutput>;
  /** Signs in to the tool's server (an OAuth server); from a click handler. */
  authorize?: () => Promise<McpAuthorizeOutcome>;
}) {
  const schema = useMemo(() => formSchema(tool.inputSchema), [tool.inputSchema]);
  const [formData, setFormData] = useState<Record<string, unknown>>({});
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<ToolProgress | undefined>();
  const [question, setQuestion] = useState<PendingQuestion | undefined>();
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [signIn, setSignIn] = useState<{ waiting: boolean; failure?: string }>({
    waiting: false,
  });
  const controller = useRef<AbortController | undefined>(undefined);
  // Leaving the tool (or the page section) ends a call still running.
  useEffect(() => () => controller.current?.abort(), []);

  const stop = () => {
    // A question still open is answered "cancel", so the server hears back.
    question?.answer('cancel');
    controller.current?.abort();
  };

  const start = async (args: Record<string, unknown>) => {
    const abort = new AbortController();
    controller.current = abort;
    setRunning(true);
    setProgress(undefined);
    setOutcome(undefined);
    const startedAt = performance.now();
    const output = await run(args, {
      signal: abort.signal,
      onProgress: (next) => setProgress({ ...next }),
      ask: (interrupt) =>
        new Promise((resolve) => {
          setQuestion({
            interrupt,
            answer: (action, content) => {
              setQuestion(undefined);
              resolve(content === undefined ? { action } : { action, content });
            },
          });
        }),
    });
    setQuestion(undefined);
    setRunning(false);
    setProgress(undefined);
    setOutcome({
      callId: `runner-${crypto.randomUUID()}`,
      output,
      durationMs: Math.round(performance.now() - startedAt),
      args,
    });
  };

  const needsSignIn =
    authorize !== undefined && !running && outcome?.output.error?.code === 'needs_auth';
  const signInAndRun = (args: Record<string, unknown>) => {
    if (authorize === undefined) return;
    setSignIn({ waiting: true });
    // Straight from the click: the sign-in popup needs the click's activation.
    authorize().then(
      (result) => {
        setSignIn({ waiting: false });
        if (result === 'authorized') void start(args);
      },
      (error: unknown) =>
        setSignIn({
          waiting: false,
          failure: describeSignInFailure(error),
        }),
    );
  };

  return (
    <section className="runner__tool" aria-label={`Run ${tool.originalName}`}>
      {tool.description !== '' && (
        <MarkdownText className="runner__description" text={tool.description} />
      )}
      <Form
        className="sb-form runner__form"
        schema={schema}
        validator={validator}
        formData={formData}
        idPrefix="runner"
        noHtml5Validate
        showErrorList={false}
        disabled={running}
        onChange={(event) => setFormData((event.formData ?? {}) as Record<string, unknown>)}
        onSubmit={(event) => void start((event.formData ?? {}) as Record<string, unknown>)}
      >
        <div className="form-actions">
          <button type="submit" className="button" disabled={running} data-testid="runner-run">
            {running ? 'Running…' : `Run ${tool.originalName}`}
          </button>
          {running && (
            <button
              type="button"
              className="button button--danger"
              data-testid="runner-stop"
              onClick={stop}
            >
              Stop
            </button>
          )}
        </div>
      </Form>
      {running && progress !== undefined && (
        <div data-testid="runner-progress">
          <ToolProgressBar progress={progress} label={`Progress of ${tool.originalName}`} />
        </div>
      )}
      {question !== undefined && (
        <div className="interrupt" data-testid="interrupt" data-mode={question.interrupt.mode}>
          <InterruptView interrupt={question.interrupt} onResolve={question.answer} />
        </div>
      )}
      {outcome !== undefined && (
        <div className="runner__outcome" data-testid="runner-outcome">
          <p className="muted">
            Called with <code>{formatArguments(outcome.args).replace(/\s+/g, ' ')}</code> in{' '}
            {outcome.durationMs} ms.
          </p>
          {tool.ui?.resourceUri !== undefined && (
            <McpAppSlot
              serverName={tool.server}
              toolName={tool.name}
              callId={outcome.callId}
              resourceUri={tool.ui.resourceUri}
              input={outcome.args}
              output={outcome.output}
            />
          )}
          <ToolOutputView output={outcome.output} server={serverName} />
          {needsSignIn && (
            <div className="sign-in__needed" data-testid="runner-needs-auth">
              <p>This server needs you to sign in (or to grant more access) for this tool.</p>
              <button
                type="button"
                className="button button--small"
                data-testid="runner-connect"
                disabled={signIn.waiting}
                onClick={() => signInAndRun(outcome.args)}
              >
                {signIn.waiting ? 'Waiting for sign-in…' : 'Connect and run again'}
              </button>
              {signIn.failure !== undefined && (
                <p className="problem" role="alert" data-testid="runner-auth-failure">
                  {signIn.failure}
                </p>
              )}
            </div>
          )}
        </div>
      )}
    </section>
  );
}

/**
 * The tool's input schema for the form: without `$schema` (the ajv8 validator knows draft-07
 * only, and servers often declare 2020-12) and always an object.
 */
function formSchema(inputSchema: Record<string, unknown>): RJSFSchema {
  const copy: Record<string, unknown> = { ...inputSchema };
  delete copy['$schema'];
  if (copy['type'] === undefined) copy['type'] = 'object';
  return copy as RJSFSchema;
}
