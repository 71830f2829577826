// '/' child route: the waitlist form (spec §3–§5, §7). idle → submitting → joined; the call's
// outcome is never shown (spec §4, §8), and the 'subscribed' flag makes joined the starting state.
import { useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { validateWaitlist } from '../../shared/validation';
import { useApiClient } from '../api-client';
import { ExternalLink } from '../components/ExternalLink';
import { ResultView } from '../components/ResultView';
import { SubmitButton } from '../components/SubmitButton';
import { TextField } from '../components/TextField';
import { setSubscribedFlag, useSubscribedFlag } from '../hooks/useSubscribedFlag';
import { useValidatedForm } from '../hooks/useValidatedForm';
import { useSiteLinks } from '../public-config';

export function WaitlistJoined({ focusOnMount }: { focusOnMount: boolean }) {
  const links = useSiteLinks();
  return (
    <ResultView kind="success" focusOnMount={focusOnMount}>
      <p>
        You are successfully joined to the wait list. Want to get your invitation faster?{' '}
        <ExternalLink href={links.donation}>Join patreon</ExternalLink>
      </p>
    </ResultView>
  );
}

export function WaitlistPage() {
  return (
    <>
      <title>Join the waitlist · OrgNote</title>
      <WaitlistForm />
    </>
  );
}

function WaitlistForm() {
  const [params] = useSearchParams();
  const prefilledEmail = params.get('email') ?? '';
  const alreadySubscribed = useSubscribedFlag();
  const [status, setStatus] = useState<'idle' | 'submitting' | 'joined'>('idle');
  const api = useApiClient();
  const form = useValidatedForm({ email: prefilledEmail, description: '' }, validateWaitlist);

  if (status === 'joined' || (alreadySubscribed && status === 'idle')) {
    return <WaitlistJoined focusOnMount={status === 'joined'} />;
  }

  const submit = form.handleSubmit(async ({ email, description }) => {
    setStatus('submitting');
    try {
      await api.subscriptionsPost({ email, description });
    } catch {
      // Spec §4/§8: failures are not shown; the visitor still ends in joined.
    } finally {
      setSubscribedFlag();
      setStatus('joined');
    }
  });

  return (
    <form className="form-card" method="post" encType="multipart/form-data" noValidate onSubmit={submit} aria-labelledby="waitlist-title">
      <h2 id="waitlist-title" className="form-title">
        Join wait list
      </h2>
      <TextField label="Email" type="email" autoComplete="email" autoFocus={!prefilledEmail} {...form.field('email')} />
      <TextField label="About me (or github profile)" multiline autoFocus={Boolean(prefilledEmail)} {...form.field('description')} />
      <SubmitButton busy={status === 'submitting'}>Join</SubmitButton>
    </form>
  );
}
