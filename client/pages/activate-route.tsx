// The route glue of '/activate': its page is a lazy chunk (ActivatePage.tsx), since visitors of /
// do not need it, so this glue hands it what it would otherwise import from the first-load bundle
// (client/routes.tsx says why): React's hook, the form's hooks and components, the links.
import { useState, type ReactElement } from 'react';
import { errorMessage } from '../../shared/api';
import { ACTIVATION, activationUrl } from '../../shared/links';
import { validateActivation } from '../../shared/validation';
import { ExternalLink } from '../components/ExternalLink';
import { ResultView } from '../components/ResultView';
import { SubmitButton } from '../components/SubmitButton';
import { TextField } from '../components/TextField';
import { useQueryParams } from '../hooks/useQueryParams';
import { useValidatedForm } from '../hooks/useValidatedForm';
import { useSiteLinks } from '../public-config';
import { usePageLanguage } from '../messages';
import type { ActivateMessages } from '../../shared/messages/types';
import { languageBase } from '../../shared/i18n/languages';

const deps = {
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
};

export type ActivateDeps = typeof deps;

/** The lazy page's module, as routes.tsx imports it. */
interface ActivatePageModule {
  ActivatePage(props: { deps: ActivateDeps; m: ActivateMessages; base: string }): ReactElement;
  /** Its messages in the browser build's language. */
  messages: ActivateMessages;
}

export function activateRoute({ ActivatePage, messages }: ActivatePageModule) {
  return {
    // The server's catalog has every part of the request's language; a browser's has none of the
    // lazy parts: the page's chunk brings its own, in the page's language.
    Component: function Activate() {
      const { language, catalog } = usePageLanguage();
      return (
        <ActivatePage deps={deps} m={catalog.activate ?? messages} base={languageBase(language)} />
      );
    },
  };
}
