// '/activate' child route: the activation form (docs/product.md §4). On submit it opens the web
// app's /auth/activate in a new tab with email, token and key, then shows success. Without
// JavaScript the same form posts to our /activate/open in a new tab, which redirects there.
// A lazy chunk: what it would import of the first-load bundle comes as `deps` (activate-route.tsx,
// client/routes.tsx says why).
import type { ActivateDeps } from './activate-route';
import type { ActivateMessages } from '../../shared/messages/types';
// The build's language's messages (package.json "imports"), in this chunk; the server hands the
// page its request's language's instead (activate-route.tsx).
import messages from '#messages/activate';

export { messages };

type Status =
  | { kind: 'idle' }
  | { kind: 'activated' }
  | { kind: 'blocked'; url: string }
  | { kind: 'error'; message: string };

/** `base`: the language's path prefix ('' or '/ru'), which a native form's action needs. */
type Props = { deps: ActivateDeps; m: ActivateMessages; base: string };

export function ActivatePage(props: Props) {
  return (
    <>
      <title>{props.m.title_}</title>
      <ActivationForm {...props} />
    </>
  );
}

function ActivationForm({ deps, m, base }: Props) {
  const {
    useState,
    useQueryParams,
    useSiteLinks,
    useValidatedForm,
    validateActivation,
    activationUrl,
    errorMessage,
    ACTIVATION,
    ExternalLink,
    ResultView,
    SubmitButton,
    TextField,
  } = deps;
  const params = useQueryParams();
  const links = useSiteLinks();
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  // The rules word their refusals in English (shared/validation.ts): the page says them in its
  // language. Only an empty field's refusal has words; a pattern mismatch has none ('').
  const validate: typeof validateActivation = (values) => {
    const errors = validateActivation(values);
    if (!values.email && errors.email !== undefined) errors.email = m.emailRequired_;
    if (!values.key && errors.key !== undefined) errors.key = m.keyRequired_;
    return errors;
  };
  const form = useValidatedForm({ email: params.get('email') ?? '', key: '' }, validate);

  const submit = form.handleSubmit(({ email, key }) => {
    try {
      const url = activationUrl(links.webApp, email, key);
      const tab = window.open(url, '_blank');
      if (!tab) {
        setStatus({ kind: 'blocked', url });
        return;
      }
      tab.opener = null; // the web app gets no handle on this page
      setStatus({ kind: 'activated' });
    } catch (error) {
      setStatus({ kind: 'error', message: m.failed_(errorMessage(error)) });
    }
  });

  // The form mounts again with its email field autofocused (useValidatedForm's firstField), so
  // focus returns there.
  const backToForm = () => setStatus({ kind: 'idle' });

  switch (status.kind) {
    case 'activated':
      return (
        <ResultView kind="success" title={m.activatedTitle_}>
          <p>{m.activated_}</p>
        </ResultView>
      );
    case 'blocked':
      return (
        <ResultView kind="success" title={m.blockedTitle_}>
          <p>{m.blocked_}</p>
          <p>
            <ExternalLink href={status.url} className="button button-primary">
              {m.openPage_}
            </ExternalLink>
          </p>
        </ResultView>
      );
    case 'error':
      return (
        <ResultView kind="error" title={m.errorTitle_} onBack={backToForm}>
          <p>{status.message}</p>
        </ResultView>
      );
  }

  return (
    <form
      className="form-card"
      action={`${base}${ACTIVATION.formAction}`}
      method="post"
      target="_blank"
      noValidate
      onSubmit={submit}
      aria-labelledby="activate-title"
    >
      <h2 id="activate-title" className="form-title">
        {m.heading_}
      </h2>
      <TextField
        label={m.emailLabel_}
        type="email"
        autoComplete="email"
        {...form.field('email')}
        name={ACTIVATION.emailParam}
      />
      <TextField
        label={m.keyLabel_}
        autoComplete="one-time-code"
        {...form.field('key')}
        name={ACTIVATION.keyParam}
      />
      <SubmitButton>{m.submit_}</SubmitButton>
    </form>
  );
}
