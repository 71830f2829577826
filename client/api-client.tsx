// The API client as React context: the page origin in the browser; tests point it at a real
// backend on 127.0.0.1.
import { createContext, useContext } from 'react';
import { createApiClient, type ApiClient } from '../shared/api';

const ApiClientContext = createContext<ApiClient>(createApiClient());

export const ApiClientProvider = ApiClientContext.Provider;

export function useApiClient(): ApiClient {
  return useContext(ApiClientContext);
}
