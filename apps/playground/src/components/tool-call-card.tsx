import type { ChatToolCallPart, ToolResultPart } from '@switchboard/core';

const stateLabels: Record<ChatToolCallPart['state'], string> = {
  running: 'Running…',
  // Held for a human (approval, form or URL). The playground has no approval UI yet.
  waiting: 'Waiting for you',
  done: 'Done',
  error: 'Error',
};

/**
 * One tool call: name, server, arguments (pretty JSON), state, progress and the result — text,
 * images, structured content and other content blocks. Tool output is untrusted: it is rendered as
 * text, and images only as base64 `data:image/…` URLs.
 */
export function ToolCallCard({ part }: { part: ChatToolCallPart }) {
  const { output, progress } = part;
  return (
    <article
      className={`tool-call tool-call--${part.state}`}
      data-testid="tool-call"
      data-tool-name={part.toolName}
      data-state={part.state}
    >
      <header className="tool-call__header">
        <span className="tool-call__kind">Tool call</span>
        <code className="tool-call__name" data-testid="tool-call-name">
          {part.toolName}
        </code>
        {part.server !== undefined && <span className="tool-call__server">on {part.server}</span>}
        <span className={`badge badge--${part.state}`} data-testid="tool-call-state">
          {stateLabels[part.state]}
        </span>
      </header>
      <div className="tool-call__section">
        <h4>Arguments</h4>
        <pre className="tool-call__code" data-testid="tool-call-arguments">
          {formatArguments(part.arguments)}
        </pre>
      </div>
      {progress !== undefined && part.state === 'running' && (
        <div className="tool-call__section">
          <h4>Progress</h4>
          <progress
            max={progress.total ?? undefined}
            value={progress.total === undefined ? undefined : progress.progress}
          />{' '}
          <span>
            {progress.progress}
            {progress.total === undefined ? '' : ` / ${progress.total}`}
            {progress.message === undefined ? '' : ` — ${progress.message}`}
          </span>
        </div>
      )}
      {output !== undefined && (
        <div className="tool-call__section">
          <h4>{output.isError === true ? 'Error' : 'Result'}</h4>
          {output.text !== '' && (
            <pre
              className={`tool-call__code tool-call__result${output.isError === true ? ' tool-call__result--error' : ''}`}
              data-testid="tool-call-result"
            >
              {output.text}
            </pre>
          )}
          {output.parts?.map((resultPart, index) => (
            <ResultPart key={index} part={resultPart} />
          ))}
          {output.structuredContent !== undefined && (
            <details className="tool-call__structured">
              <summary>Structured content</summary>
              <pre className="tool-call__code">
                {JSON.stringify(output.structuredContent, null, 2)}
              </pre>
            </details>
          )}
        </div>
      )}
    </article>
  );
}

function ResultPart({ part }: { part: ToolResultPart }) {
  switch (part.type) {
    case 'image': {
      const source = dataUrl(part.mimeType, part.data, 'image');
      return source === undefined ? (
        <p className="muted">An image of an unsupported type ({part.mimeType}).</p>
      ) : (
        <img
          className="tool-call__image"
          src={source}
          alt={`Image returned by the tool (${part.mimeType})`}
          data-testid="tool-call-image"
        />
      );
    }
    case 'audio': {
      const source = dataUrl(part.mimeType, part.data, 'audio');
      return source === undefined ? (
        <p className="muted">Audio of an unsupported type ({part.mimeType}).</p>
      ) : (
        <audio className="tool-call__audio" controls src={source} />
      );
    }
    case 'resource_link':
      return (
        <p className="tool-call__resource">
          Resource link: <code>{part.name ?? part.uri}</code>
          {part.name !== undefined && <span className="muted"> ({part.uri})</span>}
        </p>
      );
    case 'resource':
      return (
        <details className="tool-call__structured">
          <summary>
            Embedded resource{' '}
            {typeof part.resource['uri'] === 'string' ? <code>{part.resource['uri']}</code> : null}
          </summary>
          <pre className="tool-call__code">{JSON.stringify(part.resource, null, 2)}</pre>
        </details>
      );
    default:
      return null;
  }
}

/** `data:` URL for base64 media of the given kind, or undefined when the input looks wrong. */
function dataUrl(mimeType: string, data: string, kind: 'image' | 'audio'): string | undefined {
  if (!new RegExp(`^${kind}/[a-z0-9.+-]+$`, 'i').test(mimeType)) return undefined;
  if (!/^[A-Za-z0-9+/=\s]*$/.test(data)) return undefined;
  return `data:${mimeType};base64,${data.replace(/\s/g, '')}`;
}

function formatArguments(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
