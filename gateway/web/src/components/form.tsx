import type { ComponentChildren, JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ApiError } from '../api';

/** One running request of a form: whether it is busy, and what went wrong. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  async function run<T>(action: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError({ title: 'Something went wrong.', status: 0, code: 'internal:error', detail: String(caught) }));
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  return { busy, error, setError, run };
}

/** An API problem as the user reads it: its title, and its detail when it says more. */
export function ProblemMessage(props: { error: ApiError | undefined }) {
  if (!props.error) return null;
  const { title, detail } = props.error.problem;
  return (
    <div class="problem" role="alert">
      <strong>{title}</strong>
      {detail && detail !== title ? <p>{detail}</p> : null}
    </div>
  );
}

/** A notice that something worked, announced to screen readers. */
export function Notice(props: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {props.children}
    </p>
  );
}

interface FieldProps {
  readonly label: string;
  readonly name: string;
  readonly value: string;
  readonly onValue: (value: string) => void;
  readonly type?: 'text' | 'email' | 'password' | 'search' | 'datetime-local';
  readonly autoComplete?: string;
  readonly required?: boolean;
  readonly multiline?: boolean;
  readonly inputMode?: 'numeric' | 'text';
  readonly hint?: string;
  /** The problem whose field errors may name this field. */
  readonly error?: ApiError | undefined;
}

/** A labelled input with its hint and, after a 400, the API's message for it next to it. */
export function Field(props: FieldProps) {
  // Unique on the page: two forms may each have a field of one name (both ask for the current password).
  const id = `field-${useId()}`;
  const message = props.error?.fields[props.name];
  const described = [props.hint ? `${id}-hint` : '', message ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name: props.name,
    value: props.value,
    required: props.required,
    'aria-invalid': message ? true : undefined,
    'aria-describedby': described,
    onInput: (event: JSX.TargetedEvent<HTMLInputElement | HTMLTextAreaElement>) => props.onValue(event.currentTarget.value),
  };
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {props.multiline ? (
        <textarea {...common} rows={10} />
      ) : (
        <input {...common} type={props.type ?? 'text'} autoComplete={props.autoComplete} inputMode={props.inputMode} />
      )}
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {message ? (
        <p class="field-error" id={`${id}-error`}>
          {message}
        </p>
      ) : null}
    </div>
  );
}

/** A form that never reloads the page; its submit button says when it is busy. */
export function Form(props: { onSubmit: () => void; busy: boolean; submit: string; children: ComponentChildren; label?: string }) {
  return (
    <form
      aria-label={props.label}
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      {props.children}
      <button type="submit" disabled={props.busy} aria-busy={props.busy}>
        {props.busy ? 'Working…' : props.submit}
      </button>
    </form>
  );
}
