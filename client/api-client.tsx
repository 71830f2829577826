// The API client as React context: the page origin in the browser; tests point it at a real
// backend on 127.0.0.1.
import { createContext, useContext } from 'react';
import { ApiError, createApiClient, type ApiClient } from '../shared/api';

const ApiClientContext = createContext<ApiClient>(createApiClient());

export const ApiClientProvider = ApiClientContext.Provider;

export function useApiClient(): ApiClient {
  return useContext(ApiClientContext);
}

/**
 * A 400 whose answer names one of the form's fields (`{ "error", "field" }`): a validation outcome,
 * such as a refused domain, shown under that field rather than hidden as a failure.
 */
export function fieldRefusal<K extends string>(
  error: unknown,
  fields: readonly K[],
): { field: K; message: string } | undefined {
  const data = error instanceof ApiError && error.status === 400 ? error.data : undefined;
  const { error: message, field } = Object(data) as { error?: unknown; field?: K };
  return field && fields.includes(field) && typeof message === 'string' && message
    ? { field, message }
    : undefined;
}
