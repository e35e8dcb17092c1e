import Form from '@rjsf/core';
import {
  getDefaultFormState,
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
 * checkboxes), and a schema a flat form cannot show gets a clear message instead of a form.
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
  pending: boolean;
  answer(action: ResolutionAction, content?: Record<string, unknown>): void;
}

const templates = { UnsupportedFieldTemplate: UnsupportedField };

function GeneratedForm({ schema, uiSchema, pending, answer }: GeneratedFormProps): ReactNode {
  const idPrefix = `sb${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  const [formData, setFormData] = useState<Record<string, unknown>>(
    () => (getDefaultFormState(validator, schema, undefined) ?? {}) as Record<string, unknown>,
  );
  const valid = useMemo(
    () => validator.validateFormData(formData, schema).errors.length === 0,
    [formData, schema],
  );
  return (
    <Form
      className="sb-form"
      schema={schema}
      uiSchema={uiSchema}
      validator={validator}
      templates={templates}
      formData={formData}
      idPrefix={idPrefix}
      noHtml5Validate
      liveValidate="onBlur"
      showErrorList={false}
      disabled={pending}
      onChange={(event) => setFormData((event.formData ?? {}) as Record<string, unknown>)}
      onSubmit={(event) => {
        const content = toContent((event.formData ?? {}) as Record<string, unknown>);
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

/** The answers to send: fields left empty are omitted. */
function toContent(formData: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(formData).filter(([, value]) => value !== undefined && value !== null),
  );
}
