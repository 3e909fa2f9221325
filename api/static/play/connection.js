// The live connection to one game: Server-Sent Events, or the long poll where a stream never opens.
//
// A seat opens the stream with a short-lived ticket (EventSource sends no headers; the token never goes in a
// URL); a spectator opens it as is. A spectator's EventSource reconnects by itself after a blip, sending
// Last-Event-ID. A seat's would retry its ticket, which is spent once used: so on an error a seat starts over
// with a new ticket, soon (a blip is short). Back after a blip, the view is fetched again. After repeated
// failures before the stream ever opened, the page long-polls (GET .../events?after=V&wait=S).
//
// States (`state`): connecting, live, reconnecting, polling, ended (offline before the first connect).

import * as client from './api.js';

export const EVENT_TYPES = [
  'game_created', 'seat_claimed', 'game_started', 'round_started', 'tile_played', 'tile_drawn', 'passed',
  'round_ended', 'marker_placed', 'marker_removed', 'engine_double_placed', 'resigned', 'game_ended',
  'turn_started',
];

/** The wait before try number `failures` + 1: doubling from half a second, at most two. */
export const backoff = (failures) => Math.min(2000, 250 * 2 ** failures);

/** Failures before the stream ever opened after which the page long-polls instead. */
export const POLL_AFTER_FAILURES = 4;

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Connection {
  /**
   * hooks: version() and over() of the view shown; event(e) for each event; refresh() fetches the view
   * (a promise); state(s) on every change of state; error(err) for an error to show; back() when the stream
   * is open again (the message about the lost connection is past).
   * env (tests): EventSource, sleep(ms), and the API calls streamTicket, pollEvents, streamUrl.
   */
  constructor(gameId, token, hooks, env = {}) {
    this.gameId = gameId;
    this.token = token;
    this.hooks = hooks;
    this.EventSource = 'EventSource' in env ? env.EventSource : globalThis.EventSource;
    this.sleep = env.sleep || wait;
    this.client = { ...client, ...env };
    this.es = null;
    this.poll = null;
    this.opened = false;
    this.failures = 0;
    this.closed = false;
    this.state = 'offline';
  }

  setState(state) {
    this.state = state;
    this.hooks.state(state);
  }

  /** The page left the table: nothing more is fetched or reported. */
  close() {
    this.closed = true;
    if (this.es) this.es.close();
    if (this.poll) this.poll.abort();
  }

  /** The game is over: no more events will come. */
  end() {
    if (this.es) { this.es.close(); this.es = null; }
    if (this.poll) { this.poll.abort(); this.poll = null; }
    this.setState('ended');
  }

  async connect() {
    if (this.closed || this.hooks.over()) return;
    if (this.es) { this.es.close(); this.es = null; }
    // The long poll is for a network where the stream never opens; after a blip the stream is opened again.
    if (!this.EventSource || (!this.opened && this.failures >= POLL_AFTER_FAILURES)) return this.longPoll();
    const params = new URLSearchParams({ after: String(this.hooks.version()) });
    this.setState(this.opened ? 'reconnecting' : 'connecting');
    if (this.token) {
      try {
        const ticket = await this.client.streamTicket(this.gameId, this.token);
        params.set('ticket', ticket.ticket);
      } catch (err) {
        if (this.closed) return;
        this.failures += 1;
        if (err.status === 401) { this.hooks.error(err); return; }
        await this.sleep(backoff(this.failures));
        return this.connect();
      }
    }
    if (this.closed) return;
    this.listen(new this.EventSource(this.client.streamUrl(this.gameId, params)));
  }

  listen(es) {
    this.es = es;
    es.addEventListener('open', () => {
      if (this.es !== es) return;
      const again = this.opened;
      this.opened = true;
      this.failures = 0;
      this.setState('live');
      this.hooks.back();
      if (again) this.hooks.refresh().catch(this.hooks.error); // back after a blip: catch up on anything missed
    });
    const onEvent = (msg) => {
      if (this.es !== es) return;
      let event;
      try { event = JSON.parse(msg.data); } catch { return; }
      this.failures = 0;
      this.hooks.event(event);
      if (event.version > this.hooks.version()) this.hooks.refresh().catch(this.hooks.error);
      if (event.type === 'game_ended') { es.close(); this.es = null; }
    };
    for (const type of EVENT_TYPES) es.addEventListener(type, onEvent);
    es.addEventListener('message', onEvent);
    es.addEventListener('error', () => this.onError(es));
  }

  onError(es) {
    if (this.es !== es || this.closed) return;
    this.failures += 1;
    this.setState('reconnecting');
    if (es.readyState !== this.EventSource.CLOSED && !this.token) return; // the browser retries, with Last-Event-ID
    // The browser gave up, or would retry a seat's spent ticket: start over with a new one.
    es.close();
    this.es = null;
    this.sleep(backoff(this.failures)).then(() => {
      if (this.closed) return;
      this.hooks.refresh().catch(() => {}).then(() => this.connect());
    });
  }

  async longPoll() {
    const ctl = new AbortController();
    this.poll = ctl;
    this.setState('polling');
    let after = this.hooks.version();
    while (!this.closed && this.poll === ctl && !this.hooks.over()) {
      try {
        const page = await this.client.pollEvents(this.gameId, this.token, after, 25, ctl.signal);
        for (const event of page.events) this.hooks.event(event);
        if (page.last_version !== null && page.last_version !== undefined) after = page.last_version;
        if (page.events.length || page.ended) await this.hooks.refresh();
        if (page.ended) break;
      } catch (err) {
        if (err.name === 'AbortError') return;
        this.setState('reconnecting');
        await this.sleep(2000);
        this.setState('polling');
      }
    }
  }
}
