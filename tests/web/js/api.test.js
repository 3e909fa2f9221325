import { test, eq, assert } from './runner.js';
import { api, ApiError } from '/play/api.js';

// fetch answered by `answer` (a function of the request) for the length of one call.
async function withFetch(answer, call) {
  const real = globalThis.fetch;
  globalThis.fetch = async (path, init) => answer(path, init);
  try {
    return await call();
  } finally {
    globalThis.fetch = real;
  }
}

const json = (status, body) => new Response(JSON.stringify(body), {
  status, headers: { 'Content-Type': status < 400 ? 'application/json' : 'application/problem+json' },
});

// A response whose headers arrived and whose body did not: the connection dropped (a network blip).
const cutShort = (status, type, body = undefined) => ({
  ok: status < 300, status, headers: new Headers({ 'Content-Type': type }),
  text: () => (body === undefined ? Promise.reject(new TypeError('network error')) : Promise.resolve(body)),
});

async function failure(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

test('a success gives its JSON body; a problem gives its title, detail and status', async () => {
  eq(await withFetch(() => json(200, { version: 3 }), () => api('GET', '/v1/games/g')), { version: 3 });
  const err = await failure(withFetch(() => json(409, { title: 'Not your turn', detail: 'seat 1 plays' }),
    () => api('POST', '/v1/games/g/moves', { body: {} })));
  assert(err instanceof ApiError);
  eq([err.title, err.detail, err.status], ['Not your turn', 'seat 1 plays', 409]);
});

test('a body cut off by a dropped connection is the service unreachable, never a view of null', async () => {
  const lost = await failure(withFetch(() => cutShort(200, 'application/json'), () => api('GET', '/v1/games/g')));
  assert(lost instanceof ApiError);
  eq(lost.status, 0);
  const half = await failure(withFetch(() => cutShort(200, 'application/json', '{"version": 3, "bo'),
    () => api('GET', '/v1/games/g')));
  eq(half.status, 0);
  const problem = await failure(withFetch(() => cutShort(503, 'application/problem+json', '{"ti'),
    () => api('GET', '/v1/games/g')));
  eq([problem.status, problem.title], [503, 'HTTP 503']);
});

test('no answer at all is the service unreachable; an abort stays an abort', async () => {
  const none = await failure(withFetch(() => Promise.reject(new TypeError('Failed to fetch')),
    () => api('GET', '/v1/games/g')));
  eq(none.status, 0);
  const abort = await failure(withFetch(() => Promise.reject(new DOMException('gone', 'AbortError')),
    () => api('GET', '/v1/games/g')));
  eq(abort.name, 'AbortError');
});
