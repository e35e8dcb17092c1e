import Form from '@rjsf/core';
import {
  errorId,
  getDefaultFormState,
  type CustomValidator,
  type ErrorSchema,
  type FieldErrorProps,
  type RJSFSchema,
  type UiSchema,
  type UnsupportedFieldProps,
} from '@rjsf/utils';
import validator from '@rjsf/validator-ajv8';
import { useCallback, useId, useMemo, useState, type ReactNode } from 'react';
import { sessionStorageDraftStore, type ElicitationDraftStore } from './elicitation-drafts.ts';
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
  /**
   * Keep what the person types as a draft under this key, restore it when the form is shown
   * again (after a reload), and drop it once an answer (accept, decline or cancel) is sent.
   * Use one key per interrupt, `elicitationDraftKey(threadId, interrupt.callId)`. Default: no
   * draft is kept.
   */
  draftKey?: string;
  /**
   * Where drafts are kept (only used with `draftKey`). Default: {@link sessionStorageDraftStore}
   * (the tab's `sessionStorage`). Fields with `format: "password"` or `writeOnly: true` are never
   * given to the store.
   */
  draftStore?: ElicitationDraftStore;
}

const defaultDraftStore = sessionStorageDraftStore();

/**
 * An MCP elicitation form generated from the interrupt's `requestedSchema` with `@rjsf/core` and
 * the ajv8 validator (docs/architecture.md, "Dependencies"; ajv compiles with `new Function`, so a
 * strict CSP needs
 * `'unsafe-eval'` for this component). It shows which server asks and its message (as text),
 * pre-fills defaults and validates as the user goes: Accept is disabled while the answers are
 * invalid or being sent; Decline and Cancel are always there.
 *
 * Errors never cost a click: a field's error is shown once the person has left that field (or
 * at once for a field a draft restored), is computed from the current values on every change
 * (an error disappears as soon as the field is valid, never on a later blur), and each field
 * reserves its error line, so no button moves between pointer-down and click.
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
  draftKey,
  draftStore = defaultDraftStore,
}: ElicitationFormProps): ReactNode {
  const normalized = useMemo(
    () => normalizeElicitationSchema(interrupt.requestedSchema),
    [interrupt.requestedSchema],
  );
  const resolveAndDropDraft = useCallback<ResolveHandler>(
    (action, content) => {
      // The answer is on its way: the draft must not come back after a reload.
      if (draftKey !== undefined) draftStore.remove(draftKey);
      return content === undefined ? onResolve(action) : onResolve(action, content);
    },
    [draftKey, draftStore, onResolve],
  );
  const { pending, answer } = usePendingAnswer(resolveAndDropDraft);
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
          draft={
            draftKey === undefined
              ? undefined
              : {
                  key: draftKey,
                  store: draftStore,
                  secretFields: secretFieldNames(interrupt.requestedSchema),
                }
          }
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
  /** Where drafts go, and the fields never given to the store (passwords, write-only values). */
  draft:
    { key: string; store: ElicitationDraftStore; secretFields: ReadonlySet<string> } | undefined;
  pending: boolean;
  answer(action: ResolutionAction, content?: Record<string, unknown>): void;
}

const templates = {
  UnsupportedFieldTemplate: UnsupportedField,
  FieldErrorTemplate: ReservedFieldError,
};

function GeneratedForm({
  schema,
  uiSchema,
  jsonFields,
  draft,
  pending,
  answer,
}: GeneratedFormProps): ReactNode {
  const idPrefix = `sb${useId().replace(/[^a-zA-Z0-9_-]/g, '')}`;
  const fieldNames = useMemo(() => Object.keys(schema.properties ?? {}), [schema]);
  const secretFields = draft?.secretFields ?? noFields;
  const [initial] = useState(() => {
    const defaults = (getDefaultFormState(validator, schema, undefined) ?? {}) as Record<
      string,
      unknown
    >;
    const saved = draft === undefined ? undefined : draft.store.load(draft.key);
    const restored = Object.fromEntries(
      Object.entries(saved ?? {}).filter(
        ([name]) => fieldNames.includes(name) && !secretFields.has(name),
      ),
    );
    return { formData: { ...defaults, ...restored }, restored: Object.keys(restored) };
  });
  const [formData, setFormData] = useState<Record<string, unknown>>(initial.formData);
  // Fields whose errors are shown: left once (blur), or restored from a draft.
  const [touched, setTouched] = useState<ReadonlySet<string>>(() => new Set(initial.restored));
  const customValidate = useMemo(() => jsonValidator(jsonFields), [jsonFields]);
  const validation = useMemo(
    () => validator.validateFormData(formData, schema, customValidate),
    [formData, schema, customValidate],
  );
  const valid = validation.errors.length === 0;
  // Errors are derived from the current values, never kept from an earlier validation: a field
  // that became valid loses its error on the same change (docs: no stale errors).
  const shownErrors = useMemo(
    () => errorsOfFields(validation.errorSchema as ErrorSchema, touched),
    [validation.errorSchema, touched],
  );
  const fieldOfId = useCallback(
    (id: string) => fieldOfElementId(id, idPrefix, fieldNames),
    [idPrefix, fieldNames],
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
      extraErrors={shownErrors}
      showErrorList={false}
      disabled={pending}
      onChange={(event) => {
        const next = (event.formData ?? {}) as Record<string, unknown>;
        setFormData(next);
        if (draft !== undefined) {
          draft.store.save(
            draft.key,
            Object.fromEntries(Object.entries(next).filter(([name]) => !secretFields.has(name))),
          );
        }
      }}
      onBlur={(id) => {
        const name = fieldOfId(id);
        if (name !== undefined && !touched.has(name)) setTouched(new Set([...touched, name]));
      }}
      onSubmit={(event) => {
        const content = toContent((event.formData ?? {}) as Record<string, unknown>, jsonFields);
        answer('approve', content);
      }}
    >
      <Actions pending={pending} answer={answer} accept={{ disabled: !valid }} />
    </Form>
  );
}

const noFields: ReadonlySet<string> = new Set();

/**
 * The top-level fields a draft must never hold: `format: "password"` and `writeOnly: true`, read
 * from the schema as the server sent it (the normalised schema keeps only formats it validates).
 */
function secretFieldNames(requestedSchema: unknown): ReadonlySet<string> {
  const names = new Set<string>();
  const properties = (requestedSchema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return names;
  for (const [name, property] of Object.entries(properties as Record<string, unknown>)) {
    const field = (typeof property === 'object' && property !== null ? property : {}) as Record<
      string,
      unknown
    >;
    if (field.format === 'password' || field.writeOnly === true) names.add(name);
  }
  return names;
}

/** The top-level field an element id (`<idPrefix>_<name>`, or a sub-element of it) belongs to. */
function fieldOfElementId(
  id: string,
  idPrefix: string,
  fieldNames: readonly string[],
): string | undefined {
  let found: string | undefined;
  for (const name of fieldNames) {
    const base = `${idPrefix}_${name}`;
    if (id === base || id.startsWith(`${base}_`) || id.startsWith(`${base}-`)) {
      if (found === undefined || name.length > found.length) found = name;
    }
  }
  return found;
}

/** The part of `errorSchema` that belongs to the given top-level fields. */
function errorsOfFields(errorSchema: ErrorSchema, fields: ReadonlySet<string>): ErrorSchema {
  const shown: Record<string, unknown> = {};
  for (const name of fields) {
    const errors = (errorSchema as Record<string, unknown>)[name];
    if (errors !== undefined) shown[name] = errors;
  }
  return shown as ErrorSchema;
}

/**
 * A field's error line, always rendered (empty when the field is valid) so that an error
 * appearing or disappearing never moves what is below it — above all the submit button between
 * pointer-down (which blurs the field) and click.
 */
function ReservedFieldError({ errors = [], fieldPathId }: FieldErrorProps): ReactNode {
  const messages = errors.filter((error) => error !== '' && error !== undefined);
  // The root object has no error line of its own (its errors belong to fields).
  if (fieldPathId.path.length === 0 && messages.length === 0) return null;
  return (
    <ul id={errorId(fieldPathId)} className="error-detail sb-field-error" aria-live="polite">
      {messages.map((error, index) => (
        <li key={index} className="text-danger">
          {error}
        </li>
      ))}
    </ul>
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
