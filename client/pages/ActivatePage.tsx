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

// sic, docs/product.md §4
const ACTIVATED_TEXT = 'You are successfully activated your free subscription';

export function ActivatePage({ deps, m }: { deps: ActivateDeps; m: ActivateMessages }) {
  return (
    <>
      <title>{m.title_}</title>
      <ActivationForm deps={deps} />
    </>
  );
}

function ActivationForm({ deps }: { deps: ActivateDeps }) {
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
  const form = useValidatedForm({ email: params.get('email') ?? '', key: '' }, validateActivation);

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
      setStatus({ kind: 'error', message: errorMessage(error) });
    }
  });

  // The form mounts again with its email field autofocused (useValidatedForm's firstField), so
  // focus returns there.
  const backToForm = () => setStatus({ kind: 'idle' });

  switch (status.kind) {
    case 'activated':
      return (
        <ResultView kind="success">
          <p>{ACTIVATED_TEXT}</p>
        </ResultView>
      );
    case 'blocked':
      return (
        <ResultView kind="success" title="One more step">
          <p>Your browser blocked the new tab. Open the activation page to finish:</p>
          <p>
            <ExternalLink href={status.url} className="button button-primary">
              Open the activation page
            </ExternalLink>
          </p>
        </ResultView>
      );
    case 'error':
      return (
        <ResultView kind="error" onBack={backToForm}>
          <p>{status.message}</p>
        </ResultView>
      );
  }

  return (
    <form
      className="form-card"
      action={ACTIVATION.formAction}
      method="post"
      target="_blank"
      noValidate
      onSubmit={submit}
      aria-labelledby="activate-title"
    >
      <h2 id="activate-title" className="form-title">
        Enter your activation key
      </h2>
      <TextField
        label="Email"
        type="email"
        autoComplete="email"
        {...form.field('email')}
        name={ACTIVATION.emailParam}
      />
      <TextField
        label="Activation key"
        autoComplete="one-time-code"
        {...form.field('key')}
        name={ACTIVATION.keyParam}
      />
      <SubmitButton>Activate</SubmitButton>
    </form>
  );
}
