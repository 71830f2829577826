// Form state for the two small forms: validation on submit, then again on every change
// (docs/product.md §5), focus on the first invalid field. Written here rather than pulling in a
// form library because the first-load JS budget has no room for one
// (docs/decisions/0004-form-state.md). What a visitor typed before hydration is taken over from the
// inputs themselves: React leaves a hydrated input's text alone but starts its state from the
// server's value, so without this the next render would empty the field.
import { useLayoutEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import type { FieldErrors } from '../../shared/validation';
import type { FieldElement } from '../components/TextField';

/**
 * `initialErrors` come from a server-side check (the no-JavaScript form); they count as a submit.
 */
export function useValidatedForm<K extends string>(
  initial: Record<K, string>,
  validate: (values: Record<K, string>) => FieldErrors<K>,
  initialErrors?: FieldErrors<K>,
) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<FieldErrors<K>>(initialErrors ?? {});
  const [submitted, setSubmitted] = useState(initialErrors !== undefined);
  const elements = useRef<Partial<Record<K, FieldElement | null>>>({});
  const order = Object.keys(initial) as K[];

  // Once, after the hydration's commit and before the browser paints: every field's state becomes
  // what its input holds (typed before hydration, or restored by the browser), revalidated if the
  // form starts submitted. The inputs are an outside store here, which is what an effect is for.
  useLayoutEffect(() => {
    const typed = { ...values };
    for (const name of order) typed[name] = elements.current[name]?.value ?? values[name];
    if (order.every((name) => typed[name] === values[name])) return;
    // eslint-disable-next-line react-hooks/set-state-in-effect -- reading the DOM once, see above
    setValues(typed);
    if (submitted) setErrors(validate(typed));
    // Only the first commit: afterwards the inputs change through onChange.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  /** The field that should have focus first: the first invalid one, else the first empty one. */
  const firstField =
    order.find((name) => errors[name] !== undefined) ??
    order.find((name) => !values[name]) ??
    order[0];

  /** Everything a TextField needs for one field. */
  const field = (name: K) => ({
    name,
    value: values[name],
    error: errors[name],
    autoFocus: name === firstField,
    ref: (element: FieldElement | null) => {
      elements.current[name] = element;
    },
    onChange: (event: ChangeEvent<FieldElement>) => {
      const next = { ...values, [name]: event.target.value };
      setValues(next);
      if (submitted) setErrors(validate(next));
    },
  });

  const focusField = (name: K) => elements.current[name]?.focus();

  /**
   * Shows the server's message under a field (a refused domain) and focuses it; the next change
   * checks the form again, as after a submit.
   */
  const refuseField = (name: K, message: string) => {
    setErrors({ [name]: message } as FieldErrors<K>);
    focusField(name);
  };

  /** `onValid` gets the form element too, to read what is not a validated field (the honeypot). */
  const handleSubmit =
    (onValid: (values: Record<K, string>, form: HTMLFormElement) => void | Promise<void>) =>
    (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      const found = validate(values);
      setErrors(found);
      setSubmitted(true);
      const firstInvalid = order.find((name) => found[name] !== undefined);
      if (firstInvalid) {
        focusField(firstInvalid);
        return;
      }
      // onValid handles its own failures (the waitlist form never shows them, product §4).
      void onValid(values, event.currentTarget);
    };

  return { field, handleSubmit, refuseField };
}
