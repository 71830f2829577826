// A labelled input or textarea with its error message tied to it (aria-invalid,
// aria-describedby, role="alert" so the message is announced when it appears).
import { useId, type ChangeEvent, type InputHTMLAttributes } from 'react';

export type FieldElement = HTMLInputElement | HTMLTextAreaElement;

interface TextFieldProps {
  label: string;
  name: string;
  value: string;
  /**
   * undefined: valid; '': invalid without a message (docs/product.md §5 pattern rule); text: the
   * message
   */
  error?: string;
  onChange: (event: ChangeEvent<FieldElement>) => void;
  ref: (element: FieldElement | null) => void;
  multiline?: boolean;
  type?: InputHTMLAttributes<HTMLInputElement>['type'];
  autoComplete?: string;
  autoFocus?: boolean;
}

export function TextField({ label, error, multiline, ref, ...input }: TextFieldProps) {
  const id = useId();
  const invalid = error !== undefined;
  const messageId = `${id}-message`;
  const common = {
    id,
    'aria-invalid': invalid || undefined,
    'aria-describedby': error ? messageId : undefined,
    className: `field-input${invalid ? ' field-input-error' : ''}`,
  };
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      {multiline ? (
        <textarea {...common} {...input} ref={ref} rows={3} />
      ) : (
        <input {...common} {...input} ref={ref} />
      )}
      {error ? (
        <p id={messageId} className="field-message" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
