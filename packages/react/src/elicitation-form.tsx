import Form from '@rjsf/core';
import {
  getDefaultFormState,
  type CustomValidator,
  type RJSFSchema,
  type UiSchema,
  type UnsupportedFieldProps,
} from '@rjsf/utils';
import validator from '@rjsf/validator-ajv8';
import { useId, useMemo, useState, type ReactNode } from 'react';
import { DeclineAndCancel, InterruptFrame } from './interrupt-frame.tsx';
import { InterruptNotes } from './interrupt-notes.tsx';
import { InterruptSource } from './interrupt-source.tsx';
import type { Interrupt, ResolutionAction, ResolveHandler } from './interrupt-types.ts';
import { normalizeElicitationSchema } from './normalize-elicitation-schema.ts';
import { usePendingAnswer } from './use-pending-answer.ts';

/** Props of {@link ElicitationForm}. */
export interface ElicitationFormProps {
  /** A form-mode interrupt (`mode: 'form'`, `requestedSchema`, `message`, `server`). */
  interrupt: Interrupt;
  /**
   * Called with `('approve', content)` on Accept (content validated against the schema),
   * `('reject')` on Decline and `('cancel')` on Cancel.
   */
  onResolve: ResolveHandler;
  /** Extra class for the root element (`sb-interrupt sb-elicitation`). */
  className?: string;
}

/**
 * An MCP elicitation form generated from the interrupt's `requestedSchema` with `@rjsf/core` and
 * the ajv8 validator (docs/architecture.md, "Dependencies"; ajv compiles with `new Function`, so a
 * strict CSP needs
 * `'unsafe-eval'` for this component). It shows which server asks and its message (as text),
 * pre-fills defaults and validates as the user goes: Accept is disabled while the answers are
 * invalid or being sent; Decline and Cancel are always there.
 *
 * The schema is first normalised ({@link normalizeElicitationSchema}): every MCP field kind
 * renders (text with formats, numbers, checkboxes, selects with titles, multi-selects as
 * checkboxes); a field no widget shows (a nested object, a free list, …) is a JSON text field,
 * parsed before sending; only a schema that is not an object gets a message instead of a form.
 */
export function ElicitationForm({
  interrupt,
  onResolve,
  className,
}: ElicitationFormProps): ReactNode {
  const normalized = useMemo(
    () => normalizeElicitationSchema(interrupt.requestedSchema),
    [interrupt.requestedSchema],
  );
  const { pending, answer } = usePendingAnswer(onResolve);
  return (
    <InterruptFrame
      interrupt={interrupt}
      variantClassNames={['sb-elicitation', className]}
      title={
        <>
          <InterruptSource interrupt={interrupt} /> asks for information
        </>
      }
    >
      <InterruptNotes interrupt={interrupt} />
      {normalized.ok ? (
        <GeneratedForm
          key={interrupt.callId}
          schema={normalized.schema}
          uiSchema={normalized.uiSchema}
          jsonFields={normalized.jsonFields}
          pending={pending}
          answer={answer}
        />
      ) : (
        <>
          <p className="sb-form-unsupported" role="alert">
            This form cannot be shown: {normalized.reason}
          </p>
          <Actions pending={pending} answer={answer} />
        </>
      )}
    </InterruptFrame>
  );
}

interface GeneratedFormProps {
  schema: RJSFSchema;
  uiSchema: UiSchema;
  /** Fields entered as JSON text (see {@link normalizeElicitationSchema}). */
  jsonFields: Record<string, string>;
  pending: boolean;
  answer(action: ResolutionAction, content?: Record<string, unknown>): void;
}

const templates = { UnsupportedFieldTemplate: UnsupportedField };

function GeneratedForm({
  schema,
  uiSchema,
  jsonFields,
  pending,
  answer,
}: GeneratedFormProps): ReactNode {
  const idPrefix = `sb${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  const [formData, setFormData] = useState<Record<string, unknown>>(
    () => (getDefaultFormState(validator, schema, undefined) ?? {}) as Record<string, unknown>,
  );
  const customValidate = useMemo(() => jsonValidator(jsonFields), [jsonFields]);
  const valid = useMemo(
    () => validator.validateFormData(formData, schema, customValidate).errors.length === 0,
    [formData, schema, customValidate],
  );
  return (
    <Form
      className="sb-form"
      schema={schema}
      uiSchema={uiSchema}
      validator={validator}
      customValidate={customValidate}
      templates={templates}
      formData={formData}
      idPrefix={idPrefix}
      noHtml5Validate
      liveValidate="onBlur"
      showErrorList={false}
      disabled={pending}
      onChange={(event) => setFormData((event.formData ?? {}) as Record<string, unknown>)}
      onSubmit={(event) => {
        const content = toContent((event.formData ?? {}) as Record<string, unknown>, jsonFields);
        answer('approve', content);
      }}
    >
      <Actions pending={pending} answer={answer} accept={{ disabled: !valid }} />
    </Form>
  );
}

function Actions({
  pending,
  answer,
  accept,
}: {
  pending: boolean;
  answer(action: ResolutionAction): void;
  accept?: { disabled: boolean };
}): ReactNode {
  return (
    <div className="sb-actions">
      {accept !== undefined && (
        <button
          type="submit"
          className="sb-button sb-button--primary"
          disabled={accept.disabled || pending}
        >
          Accept
        </button>
      )}
      <DeclineAndCancel disabled={pending} answer={answer} />
    </div>
  );
}

/** Never shows the schema as JSON (rjsf's default would). */
function UnsupportedField({ reason }: UnsupportedFieldProps): ReactNode {
  return (
    <p className="sb-form-unsupported">
      This field cannot be shown{reason === undefined || reason === '' ? '.' : `: ${reason}`}
    </p>
  );
}

/** Marks each JSON field whose text is not JSON. */
function jsonValidator(jsonFields: Record<string, string>): CustomValidator {
  return (formData, errors) => {
    for (const name of Object.keys(jsonFields)) {
      const text = (formData as Record<string, unknown> | undefined)?.[name];
      if (typeof text !== 'string' || text.trim() === '') continue;
      try {
        JSON.parse(text);
      } catch {
        (errors as Record<string, { addError(message: string): void } | undefined>)[name]?.addError(
          'Enter valid JSON.',
        );
      }
    }
    return errors;
  };
}

/** The answers to send: fields left empty are omitted, JSON fields are parsed. */
function toContent(
  formData: Record<string, unknown>,
  jsonFields: Record<string, string>,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(formData)
      .filter(([, value]) => value !== undefined && value !== null)
      .map(([name, value]) =>
        name in jsonFields && typeof value === 'string' ? [name, parseJson(value)] : [name, value],
      ),
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
