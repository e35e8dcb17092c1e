import type { ToolOutput, ToolResultPart } from '@switchboard/core';
import { ErrorNotice } from '@switchboard/react';

/**
 * A tool's result — text, images, audio, resources and structured content. Tool output is
 * untrusted: text is rendered as text, media only as base64 `data:` URLs of a matching type.
 * An error output is an `<ErrorNotice>`: one sentence, and what the model read under Details.
 */
export function ToolOutputView({ output, server }: { output: ToolOutput; server?: string }) {
  const failed = output.isError === true;
  return (
    <div className="tool-output" data-testid="tool-output">
      <h4>{failed ? 'Did not succeed' : 'Result'}</h4>
      {failed ? (
        <ErrorNotice
          output={output}
          announce="none"
          data-testid="tool-error"
          {...(server === undefined ? {} : { server })}
        />
      ) : (
        output.text !== '' && (
          <pre className="code-block tool-output__text" data-testid="tool-call-result">
            {output.text}
          </pre>
        )
      )}
      {output.parts?.map((part, index) => (
        <ResultPart key={index} part={part} />
      ))}
      {output.structuredContent !== undefined && (
        <details className="tool-output__structured" open>
          <summary>Structured content</summary>
          <pre className="code-block" data-testid="tool-call-structured">
            {JSON.stringify(output.structuredContent, null, 2)}
          </pre>
        </details>
      )}
    </div>
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
          className="tool-output__image sb-attachment__thumbnail"
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
        <audio className="tool-output__audio" controls src={source} />
      );
    }
    case 'resource_link':
      return (
        <p className="tool-output__resource">
          Resource link: <code>{part.name ?? part.uri}</code>
          {part.name !== undefined && <span className="muted"> ({part.uri})</span>}
        </p>
      );
    case 'resource':
      return (
        <details className="tool-output__structured">
          <summary>
            Embedded resource{' '}
            {typeof part.resource['uri'] === 'string' ? <code>{part.resource['uri']}</code> : null}
          </summary>
          <pre className="code-block">{JSON.stringify(part.resource, null, 2)}</pre>
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

/** Pretty JSON text of tool arguments (a raw string as it is). */
export function formatArguments(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}
