// The API client against a real multer backend on 127.0.0.1: the waitlist call of docs/product.md
// §7 and the error texts of product §8.
import { ApiError, createApiClient, errorMessage, RequiredError } from '../../shared/api';
import { closedPort, backendForEachTest } from '../support/backend';

const backend = backendForEachTest();
beforeEach(() => {
  backend.respondWith((req, res) => res.status(201).json({ email: 'a@b.co' }));
});

describe('API client', () => {
  it('posts the waitlist fields as multipart, with no Authorization header', async () => {
    const api = createApiClient({ baseUrl: backend.url });
    await expect(
      api.subscriptionsPost({ email: 'a@b.co', description: 'github.com/me\r\nzweite Zeile ü' }),
    ).resolves.toEqual({ email: 'a@b.co' });
    const got = backend.received[0];
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/api/subscriptions');
    expect(got.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(got.headers.authorization).toBeUndefined();
    expect(got.fields).toEqual({ email: 'a@b.co', description: 'github.com/me\r\nzweite Zeile ü' });
  });

  it('leaves out an absent description and an empty honeypot, and sends a filled one', async () => {
    const api = createApiClient({ baseUrl: backend.url });
    await api.subscriptionsPost({ email: 'a@b.co', website: '' });
    await api.subscriptionsPost({
      email: 'a@b.co',
      description: 'me',
      website: 'http://spam.example',
    });
    expect(backend.received[0].fields).toEqual({ email: 'a@b.co' });
    expect(backend.received[1].fields).toEqual({
      email: 'a@b.co',
      description: 'me',
      website: 'http://spam.example',
    });
  });

  it("sends the page's language when given, and nothing for it otherwise", async () => {
    const api = createApiClient({ baseUrl: backend.url });
    await api.subscriptionsPost({ email: 'a@b.co', description: 'я', language: 'ru' });
    expect(backend.received[0].fields).toEqual({
      email: 'a@b.co',
      description: 'я',
      language: 'ru',
    });
  });

  it('sends each field of where the visitor came from that is known, and none of the others', async () => {
    const api = createApiClient({ baseUrl: backend.url });
    await api.subscriptionsPost({
      email: 'a@b.co',
      source: { utm_source: 'hn', referrer: 'news.ycombinator.com' },
    });
    await api.subscriptionsPost({ email: 'c@d.co', source: {} });
    expect(backend.received.map((request) => request.fields)).toEqual([
      { email: 'a@b.co', utm_source: 'hn', referrer: 'news.ycombinator.com' },
      { email: 'c@d.co' },
    ]);
  });

  it('refuses a missing required parameter with the product §8 text', () => {
    const api = createApiClient({ baseUrl: backend.url });
    expect(() => api.subscriptionsPost({ email: undefined as unknown as string })).toThrow(
      new RequiredError('email', 'subscriptionsPost'),
    );
    expect(() => api.subscriptionsPost({ email: null as unknown as string })).toThrow(
      'Required parameter email was null or undefined when calling subscriptionsPost.',
    );
  });

  it('reports a non-2xx answer with its status and body', async () => {
    backend.respondWith((req, res) => res.status(400).json({ error: 'Email address is invalid' }));
    const api = createApiClient({ baseUrl: backend.url });
    const error = (await api
      .subscriptionsPost({ email: 'a@b' })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe('Request failed with status code 400');
    expect(error.status).toBe(400);
    expect(errorMessage(error)).toBe('Email address is invalid');
  });

  it('falls back to the error message when the answer has no error field', async () => {
    backend.respondWith((req, res) => res.status(500).send('oops'));
    const api = createApiClient({ baseUrl: backend.url });
    const error = await api.subscriptionsPost({ email: 'a@b.co' }).catch((e: ApiError) => e);
    expect(errorMessage(error)).toBe('Request failed with status code 500');
  });

  it("says 'Network Error' when nothing answers", async () => {
    const api = createApiClient({ baseUrl: `http://127.0.0.1:${await closedPort()}` });
    await expect(api.subscriptionsPost({ email: 'a@b.co' })).rejects.toThrow(
      new ApiError('Network Error'),
    );
  });

  it("says 'timeout of {n}ms exceeded' when a timeout is set and passes", async () => {
    backend.respondWith(() => new Promise(() => {}));
    const api = createApiClient({ baseUrl: backend.url, timeoutMs: 50 });
    await expect(api.subscriptionsPost({ email: 'a@b.co' })).rejects.toThrow(
      'timeout of 50ms exceeded',
    );
  });

  it("says 'Request aborted' when the caller aborts, and waits without limit by default", async () => {
    backend.respondWith(() => new Promise(() => {}));
    const api = createApiClient({ baseUrl: backend.url });
    const controller = new AbortController();
    const call = api.subscriptionsPost({ email: 'a@b.co' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toThrow('Request aborted');
  });

  it('shows other errors as they are', () => {
    expect(errorMessage(new Error('Something else'))).toBe('Something else');
    expect(errorMessage('plain')).toBe('plain');
  });
});
