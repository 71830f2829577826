// The site's API client (docs/product.md §7): the waitlist's multipart POST to the page origin, no
// timeout, no Authorization header. Errors carry exactly the texts of product §8. The activation
// form opens the web app instead of calling the API (§4), so the client has no activation call.
import { API_PATHS, HTTP_TIMEOUT_MS } from './constants';
import type { Language } from './i18n/languages';
import { LANGUAGE_FIELD } from './native-form';
import { CHALLENGE_PATH, PROOF_FIELD } from './proof-of-work';
import type { SignupSource } from './sources';

interface SubscribeRequest {
  email: string;
  description?: string;
  /** The honeypot (shared/form-checks.ts); sent only when something filled it. */
  website?: string;
  /** A solved proof-of-work challenge (shared/proof-of-work.ts), with PROOF_OF_WORK on. */
  altcha?: string;
  /** The page's language when not English (shared/i18n/languages.ts); left out, English. */
  language?: Language;
  /** Where the visitor came from (shared/sources.ts): each field that is known. */
  source?: SignupSource;
}

/** A missing required parameter (docs/product.md §8). */
export class RequiredError extends Error {
  constructor(
    readonly field: string,
    operation: string,
  ) {
    super(`Required parameter ${field} was null or undefined when calling ${operation}.`);
    this.name = 'RequiredError';
  }
}

/** A failed call: no answer, aborted, timed out, or a non-2xx status (docs/product.md §8). */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    /** The parsed body of a non-2xx answer, when there was one. */
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * What to show the user for an error (docs/product.md §8): the `error` field of an API error
 * response, otherwise the error's own message.
 */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError && error.data && typeof error.data === 'object') {
    const field = (error.data as { error?: unknown }).error;
    if (typeof field === 'string' && field) return field;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

interface ApiClientOptions {
  /** Base address; '' means the page origin. */
  baseUrl?: string;
  /** 0 = no timeout (docs/product.md §7, §9). */
  timeoutMs?: number;
}

interface CallOptions {
  signal?: AbortSignal;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function createApiClient({
  baseUrl = '',
  timeoutMs = HTTP_TIMEOUT_MS,
}: ApiClientOptions = {}) {
  async function postForm(
    path: string,
    fields: Record<string, string | undefined>,
    options: CallOptions = {},
  ): Promise<unknown> {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (value !== undefined) form.append(name, value);
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer =
      timeoutMs > 0
        ? setTimeout(() => ((timedOut = true), controller.abort()), timeoutMs)
        : undefined;
    const onAbort = () => controller.abort();
    options.signal?.addEventListener('abort', onAbort);
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        body: form,
        signal: controller.signal,
      });
    } catch {
      if (timedOut) throw new ApiError(`timeout of ${timeoutMs}ms exceeded`);
      if (controller.signal.aborted) throw new ApiError('Request aborted');
      throw new ApiError('Network Error');
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
    const data = await readBody(response).catch(() => undefined);
    if (!response.ok)
      throw new ApiError(
        `Request failed with status code ${response.status}`,
        response.status,
        data,
      );
    return data;
  }

  return {
    /** POST /api/subscriptions: join the waitlist. */
    subscriptionsPost(params: SubscribeRequest, options?: CallOptions) {
      if (params.email == null) throw new RequiredError('email', 'subscriptionsPost');
      return postForm(
        API_PATHS.subscriptions,
        {
          email: params.email,
          description: params.description,
          website: params.website || undefined,
          [PROOF_FIELD]: params.altcha,
          [LANGUAGE_FIELD]: params.language,
          ...params.source,
        },
        options,
      );
    },

    /** Where the proof-of-work solver gets a challenge to solve before the signup is sent. */
    challengeUrl: `${baseUrl}${CHALLENGE_PATH}`,
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
