import { test, eq, assert } from './runner.js';
import { Connection, backoff, POLL_AFTER_FAILURES } from '/play/connection.js';

// An EventSource the test drives: open(), send(type, data), fail(readyState).
class FakeEventSource {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 2;
  static made = [];

  constructor(url) {
    this.url = url;
    this.readyState = FakeEventSource.CONNECTING;
    this.listeners = {};
    this.closed = false;
    FakeEventSource.made.push(this);
  }

  addEventListener(type, fn) { (this.listeners[type] ||= []).push(fn); }
  close() { this.closed = true; this.readyState = FakeEventSource.CLOSED; }
  emit(type, msg = {}) { for (const fn of this.listeners[type] || []) fn(msg); }
  open() { this.readyState = FakeEventSource.OPEN; this.emit('open'); }
  send(type, event) { this.emit(type, { data: JSON.stringify(event) }); }
  fail(readyState = FakeEventSource.CONNECTING) { this.readyState = readyState; this.emit('error'); }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));
async function settle() { for (let i = 0; i < 10; i++) await tick(); }

/** A connection with fakes all round; `log` records what it did, in order. */
function harness({ token = null, ticketFails = 0, polls = [] } = {}) {
  FakeEventSource.made = [];
  const log = [];
  const view = { version: 3, over: false };
  let tickets = 0;
  const hooks = {
    version: () => view.version,
    over: () => view.over,
    event: (e) => log.push(`event ${e.type}`),
    refresh: () => { log.push('refresh'); return Promise.resolve(); },
    state: (s) => log.push(`state ${s}`),
    error: (err) => log.push(`error ${err.status}`),
    back: () => log.push('back'),
  };
  const env = {
    EventSource: FakeEventSource,
    sleep: (ms) => { log.push(`sleep ${ms}`); return Promise.resolve(); },
    streamTicket: () => {
      tickets += 1;
      if (tickets <= ticketFails) return Promise.reject(Object.assign(new Error('down'), { status: 0 }));
      return Promise.resolve({ ticket: `T${tickets}` });
    },
    pollEvents: (id, tok, after) => {
      log.push(`poll after ${after}`);
      const next = polls.shift();
      return next ? Promise.resolve(next) : new Promise(() => {});
    },
  };
  const conn = new Connection('g1', token, hooks, env);
  return { conn, log, view, sources: FakeEventSource.made };
}

test('backoff doubles from half a second up to two', () => {
  eq([1, 2, 3, 4, 8].map(backoff), [500, 1000, 2000, 2000, 2000]);
});

test('a spectator streams without a ticket, from the version shown, and goes live on open', async () => {
  const { conn, log, sources } = harness();
  await conn.connect();
  eq(sources.length, 1);
  eq(sources[0].url, '/v1/games/g1/events?after=3');
  sources[0].open();
  eq(log, ['state connecting', 'state live', 'back']);
  eq(conn.state, 'live');
});

test("after a blip a spectator's EventSource retries by itself (Last-Event-ID), then catches up", async () => {
  const { conn, log, sources } = harness();
  await conn.connect();
  sources[0].open();
  log.length = 0;
  sources[0].fail(FakeEventSource.CONNECTING);
  eq(conn.state, 'reconnecting');
  assert(!sources[0].closed && sources.length === 1, 'the same EventSource, left to retry');
  sources[0].open();
  eq(log, ['state reconnecting', 'state live', 'back', 'refresh']);
});

test('a seat takes a new ticket after a blip: the browser would retry the spent one', async () => {
  const { conn, log, sources } = harness({ token: 'secret' });
  await conn.connect();
  eq(sources[0].url, '/v1/games/g1/events?after=3&ticket=T1');
  assert(!sources[0].url.includes('secret'), 'the token never goes in a URL');
  sources[0].open();
  log.length = 0;
  sources[0].fail(FakeEventSource.CONNECTING);
  await settle();
  assert(sources[0].closed, 'the stream with the spent ticket is closed');
  eq(sources.length, 2);
  eq(sources[1].url, '/v1/games/g1/events?after=3&ticket=T2');
  eq(log, ['state reconnecting', 'sleep 500', 'refresh', 'state reconnecting']);
  sources[1].open();
  eq(conn.state, 'live');
  eq(log.slice(-3), ['state live', 'back', 'refresh']);
});

test('a ticket that cannot be had is asked again with backoff; a 401 is shown and ends the tries', async () => {
  const { conn, log, sources } = harness({ token: 'secret', ticketFails: 2 });
  await conn.connect();
  eq(log, ['state connecting', 'sleep 500', 'state connecting', 'sleep 1000', 'state connecting']);
  eq(sources[0].url, '/v1/games/g1/events?after=3&ticket=T3');
  const refused = harness({ token: 'old' });
  refused.conn.client.streamTicket = () => Promise.reject(Object.assign(new Error('no'), { status: 401 }));
  await refused.conn.connect();
  eq(refused.log, ['state connecting', 'error 401']);
  eq(refused.sources.length, 0);
});

test('events: a newer version fetches the view; game_ended closes the stream', async () => {
  const { conn, log, sources, view } = harness();
  await conn.connect();
  sources[0].open();
  log.length = 0;
  sources[0].send('tile_played', { type: 'tile_played', version: 3 });
  sources[0].send('tile_played', { type: 'tile_played', version: 4 });
  view.version = 4;
  sources[0].send('game_ended', { type: 'game_ended', version: 5 });
  eq(log, ['event tile_played', 'event tile_played', 'refresh', 'event game_ended', 'refresh']);
  assert(sources[0].closed && conn.es === null);
  sources[0].emit('message', { data: 'not json' });
  eq(log.length, 5, 'a closed stream is not listened to');
});

test('a stream that never opens gives way to the long poll', async () => {
  const polls = [
    { events: [{ type: 'tile_played', version: 4 }], last_version: 4, ended: false },
    { events: [], last_version: 4, ended: true },
  ];
  const { conn, log, sources } = harness({ polls });
  await conn.connect();
  for (let i = 0; i < POLL_AFTER_FAILURES; i++) {
    sources.at(-1).fail(FakeEventSource.CLOSED);
    await settle();
  }
  await settle();
  eq(sources.length, POLL_AFTER_FAILURES);
  eq(log.filter((l) => l.startsWith('sleep')), ['sleep 500', 'sleep 1000', 'sleep 2000', 'sleep 2000']);
  eq(log.slice(-6), ['state polling', 'poll after 3', 'event tile_played', 'refresh', 'poll after 4', 'refresh']);
});

test('a closed connection does nothing more; the end of the game says so', async () => {
  const { conn, log, sources } = harness({ token: 'secret' });
  await conn.connect();
  sources[0].open();
  conn.close();
  log.length = 0;
  sources[0].fail(FakeEventSource.CLOSED);
  await settle();
  eq(log, []);
  eq(sources.length, 1);
  const ended = harness();
  await ended.conn.connect();
  ended.conn.end();
  eq(ended.conn.state, 'ended');
  assert(ended.sources[0].closed);
});
