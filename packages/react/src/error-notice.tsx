import {
  describeError,
  describeToolError,
  type ErrorDescription,
  type ToolOutput,
} from '@switchboard/core';
import type { HTMLAttributes, ReactNode } from 'react';
import { classNames } from './class-names.ts';

/** Props of {@link ErrorNotice}: exactly one of `error` and `output`. */
export type ErrorNoticeProps = (
  | {
      /** Anything thrown: a `SwitchboardError` is described by its code and details. */
      error: unknown;
      output?: never;
    }
  | {
      /** A tool call's error output (`isError`), described by its `error.code`. */
      output: ToolOutput;
      error?: never;
    }
) & {
  /** The MCP server the error is about, named in the sentence and the details. */
  server?: string;
  /** A short heading before the sentence ("Could not use this server"). None by default. */
  title?: string;
  /**
   * `alert` (default) announces the notice when it appears; `none` for a notice that is part of
   * a record (a tool card in the history) rather than news.
   */
  announce?: 'alert' | 'none';
  /** Actions shown under the sentence (a Reconnect button, …). */
  children?: ReactNode;
  /** Extra class for the root element (`sb-error-notice`). */
  className?: string;
} & Pick<HTMLAttributes<HTMLDivElement>, 'id'> & { 'data-testid'?: string };

/**
 * One error as a person reads it: a one-line sentence saying what happened and what to do
 * (`describeError` / `describeToolError` from `@switchboard/core`), then a collapsed "Details"
 * disclosure with the code, server, HTTP status, the fields a validator rejected, an excerpt of
 * the response body, the message and its cause. Raw JSON and validator dumps stay in the
 * details; text is rendered as text, never as HTML.
 *
 * ```tsx
 * {error && <ErrorNotice error={error} server="demo" title="Could not use this server" />}
 * ```
 */
export function ErrorNotice(props: ErrorNoticeProps): ReactNode {
  const { server, title, announce = 'alert', children, className } = props;
  const context = server === undefined ? {} : { server };
  const description =
    props.output === undefined
      ? describeError(props.error, context)
      : describeToolError(props.output, context);
  return (
    <div
      className={classNames('sb-error-notice', className)}
      role={announce === 'alert' ? 'alert' : undefined}
      data-code={description.details.code}
      data-testid={props['data-testid']}
      id={props.id}
    >
      {title !== undefined && <strong className="sb-error-title">{title}</strong>}
      <p className="sb-error-sentence">{description.sentence}</p>
      {children}
      <ErrorDetails details={description.details} />
    </div>
  );
}

function ErrorDetails({ details }: { details: ErrorDescription['details'] }): ReactNode {
  const { code, server, httpStatus, invalidFields, body, message, cause } = details;
  return (
    <details className="sb-error-details">
      <summary>Details</summary>
      <dl>
        <dt>Code</dt>
        <dd>
          <code className="sb-error-code">{code}</code>
        </dd>
        {server !== undefined && (
          <>
            <dt>Server</dt>
            <dd>{server}</dd>
          </>
        )}
        {httpStatus !== undefined && (
          <>
            <dt>HTTP status</dt>
            <dd>{httpStatus}</dd>
          </>
        )}
        {invalidFields !== undefined && (
          <>
            <dt>Fields</dt>
            <dd>
              <ul className="sb-error-fields">
                {invalidFields.map((field) => (
                  <li key={field.path}>
                    {field.path === '' ? (
                      field.problem
                    ) : (
                      <>
                        <code>{field.path}</code>: {field.problem}
                      </>
                    )}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
        {body !== undefined && (
          <>
            <dt>Response</dt>
            <dd>
              <pre className="sb-error-body">{body}</pre>
            </dd>
          </>
        )}
        {/* A dump the fields list already says is left out. */}
        {invalidFields === undefined && (
          <>
            <dt>Message</dt>
            <dd className="sb-error-message">{message}</dd>
          </>
        )}
        {cause !== undefined && (
          <>
            <dt>Cause</dt>
            <dd className="sb-error-cause">{cause}</dd>
          </>
        )}
      </dl>
    </details>
  );
}
