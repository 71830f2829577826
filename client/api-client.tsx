// The API client as React context: the page origin in the browser; tests point it at a real
// backend on 127.0.0.1.
import { createContext, useContext } from 'react';
import { ApiError, createApiClient, type ApiClient } from '../shared/api';
import { problemText, type FieldProblem } from '../shared/field-problems';
import type { SiteMessages } from '../shared/messages/types';

const ApiClientContext = createContext<ApiClient>(createApiClient());

export const ApiClientProvider = ApiClientContext.Provider;

export function useApiClient(): ApiClient {
  return useContext(ApiClientContext);
}

/**
 * A 400 whose answer names one of the form's fields (`{ "error", "field" }`): a validation outcome,
 * such as a refused domain, shown under that field rather than hidden as a failure. Its `code` is
 * said in the page's language; the English `error` is the fallback for a code without words here.
 */
export function fieldRefusal<K extends string>(
  error: unknown,
  fields: readonly K[],
  m: SiteMessages,
): { field: K; message: string } | undefined {
  const data = error instanceof ApiError && error.status === 400 ? error.data : undefined;
  // An unknown code, or none, has no words: problemText gives undefined.
  const answer = Object(data) as FieldProblem & { error?: unknown; field?: K };
  const { field } = answer;
  const message = problemText(answer, m) || answer.error;
  return field && fields.includes(field) && typeof message === 'string' && message
    ? { field, message }
    : undefined;
}
