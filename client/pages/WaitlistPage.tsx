// '/' child route: the waitlist form (docs/product.md §3–§5, §7). idle → submitting → joined; the
// call's outcome is never shown (product §4, §8), and the 'subscribed' flag makes joined the
// starting state.
import { useEffect, useState } from 'react';
import {
  data,
  redirect,
  useActionData,
  useLoaderData,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type RouterContextProvider,
} from 'react-router';
import {
  ISSUED_FIELD,
  JOINED_PARAM,
  LANGUAGE_FIELD,
  WAITLIST_FORM_ACTION,
  type WaitlistLoaded,
  type WaitlistSubmission,
} from '../../shared/native-form';
import { HONEYPOT_FIELD } from '../../shared/form-checks';
import { validateWaitlist } from '../../shared/validation';
import { fieldRefusal, useApiClient } from '../api-client';
import { ExternalLink } from '../components/ExternalLink';
import { ResultView } from '../components/ResultView';
import { SubmitButton } from '../components/SubmitButton';
import { TextField } from '../components/TextField';
import { useQueryParams } from '../hooks/useQueryParams';
import { setSubscribedFlag, useSubscribedFlag } from '../hooks/useSubscribedFlag';
import { useValidatedForm } from '../hooks/useValidatedForm';
import { usePublicConfig, useSiteLinks } from '../public-config';
import { useMessages, usePageLanguage } from '../messages';
import { DEFAULT_LANGUAGE, languageBase } from '../../shared/i18n/languages';
import { useProofOfWork } from '../proof-of-work/useProofOfWork';
import { issuedFieldContext, waitlistFormContext } from '../route-context';
import { keptSource, usePageSource } from '../landing-source';

/** Invisible to people, to assistive technology and to Tab; bots filling every field fill it. */
function Honeypot() {
  return (
    <div className="honeypot" aria-hidden="true">
      <label>
        {useMessages().honeypot_}
        <input type="text" name={HONEYPOT_FIELD} tabIndex={-1} autoComplete="off" defaultValue="" />
      </label>
    </div>
  );
}

function WaitlistJoined({ focusOnMount }: { focusOnMount: boolean }) {
  const links = useSiteLinks();
  const { confirmSignups } = usePublicConfig();
  const m = useMessages();
  return (
    <ResultView kind="success" focusOnMount={focusOnMount}>
      <p>
        {m.joined_} <ExternalLink href={links.donation}>{m.patreon_}</ExternalLink>
      </p>
      {/* With double opt-in, a signup waits for its address to be confirmed. */}
      {confirmSignups ? <p>{m.confirmMail_}</p> : null}
    </ResultView>
  );
}

type ServerActionArgs = ActionFunctionArgs<Readonly<RouterContextProvider>>;

/**
 * The index route's action: only the server runs it, for the native (no-JavaScript) POST; with
 * JavaScript the form submits through the API client instead.
 */
export async function waitlistAction({ request, context }: ServerActionArgs) {
  const submitWaitlistForm = context.get(waitlistFormContext);
  const notAllowed = { status: 405, statusText: 'Method Not Allowed' };
  if (!submitWaitlistForm) throw new Response(null, notAllowed);
  const result = await submitWaitlistForm(await request.formData());
  if (result.ok) return redirect(`/?${JOINED_PARAM}`, 303);
  // A form sent too soon or too late is not the visitor's mistake: nothing to correct.
  return data(result, { status: result.status ?? (result.reissued ? 200 : 400) });
}

/**
 * The index route's loader, the server's only: the issue time the plain form carries, with
 * PROOF_OF_WORK on. The page hands it to the browser in its hydration data; the form with
 * JavaScript sends proof of work instead, so the browser never loads it again.
 */
export async function waitlistLoader({
  context,
}: LoaderFunctionArgs<Readonly<RouterContextProvider>>): Promise<WaitlistLoaded> {
  const issue = context.get(issuedFieldContext);
  return issue ? { issued: await issue() } : {};
}

export function WaitlistPage() {
  return (
    <>
      <title>{useMessages().waitlistTitle_}</title>
      <WaitlistForm />
    </>
  );
}

function WaitlistForm() {
  const params = useQueryParams();
  const rejected = useActionData<Extract<WaitlistSubmission, { ok: false }>>();
  const issued = useLoaderData<WaitlistLoaded | undefined>()?.issued;
  const joinedWithoutScript = params.has(JOINED_PARAM);
  const alreadySubscribed = useSubscribedFlag();
  const [status, setStatus] = useState<'idle' | 'submitting' | 'joined'>('idle');
  const api = useApiClient();
  const { language } = usePageLanguage();
  const m = useMessages();
  // English is what a signup without the field is: an English page sends none.
  const otherLanguage = language === DEFAULT_LANGUAGE ? undefined : language;
  const proof = useProofOfWork(usePublicConfig().proofOfWork);
  const source = usePageSource();
  const form = useValidatedForm(
    rejected?.values ?? { email: params.get('email') ?? '', description: '' },
    (values) => validateWaitlist(values, m),
    rejected?.errors,
  );

  // A native submission that ended on /?joined counts as joined for later visits too.
  useEffect(() => {
    if (joinedWithoutScript) setSubscribedFlag();
  }, [joinedWithoutScript]);

  if (status === 'joined' || ((alreadySubscribed || joinedWithoutScript) && status === 'idle')) {
    return <WaitlistJoined focusOnMount={status === 'joined'} />;
  }

  const submit = form.handleSubmit(async ({ email, description }, formElement) => {
    const website = (formElement.elements.namedItem(HONEYPOT_FIELD) as HTMLInputElement | null)
      ?.value;
    setStatus('submitting');
    try {
      const altcha = await proof.take();
      await api.subscriptionsPost({
        email,
        description,
        website,
        altcha,
        language: otherLanguage,
        source: keptSource(),
      });
    } catch (error) {
      // docs/product.md §4/§8: failures are not shown; the visitor still ends in joined. A message
      // about a field (a refused domain) is a validation outcome: the form stays, showing it.
      const refused = fieldRefusal(error, ['email', 'description'] as const, m);
      if (refused) {
        setStatus('idle');
        return form.refuseField(refused.field, refused.message);
      }
    }
    setSubscribedFlag();
    setStatus('joined');
  });

  return (
    <>
      <form
        className="form-card waitlist-form"
        action={languageBase(language) + WAITLIST_FORM_ACTION}
        method="post"
        encType="multipart/form-data"
        noValidate
        onSubmit={submit}
        onFocus={proof.start}
        onKeyDown={proof.start}
        onPointerDown={proof.start}
        aria-labelledby="waitlist-title"
      >
        <h2 id="waitlist-title" className="form-title">
          {m.joinHeading_}
        </h2>
        <TextField label={m.email_} type="email" autoComplete="email" {...form.field('email')} />
        <TextField label={m.about_} multiline {...form.field('description')} />
        <Honeypot />
        {issued ? <input type="hidden" name={ISSUED_FIELD} value={issued} /> : null}
        {otherLanguage ? <input type="hidden" name={LANGUAGE_FIELD} value={otherLanguage} /> : null}
        {/* Where the visitor came from, as the server found it (the script sends its own). */}
        {Object.entries(source).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        {rejected?.reissued ? (
          <p className="form-note" role="status">
            {m.again_}
          </p>
        ) : null}
        <SubmitButton busy={status === 'submitting'}>{m.join_}</SubmitButton>
      </form>
      {/* The joined view as a visitor who joined before sees it, hidden unless the document's
          inline script found the flag (html[data-joined], server/pages/document.tsx): shown from
          the first paint, long before React runs. Hydration then renders the same view itself. */}
      <div className="joined-ahead" hidden>
        <WaitlistJoined focusOnMount={false} />
      </div>
    </>
  );
}
