// What the page tells the user outside the table: the error banner (an alert: the problem details' title and
// detail) and the polite live region that announces moves and turns to screen readers.

import { h, put } from './dom.js';
import { ApiError } from './api.js';
import { SAY } from './text.js';

const $error = document.getElementById('error');
const $announcer = document.getElementById('announcer');

// The live region keeps its last few lines (a screen reader reads each one added; removals are silent).
const KEEP_ANNOUNCED = 6;

export function showError(err) {
  if (err && err.name === 'AbortError') return;
  const title = err instanceof ApiError ? err.title : SAY.somethingWrong;
  const detail = err instanceof ApiError ? err.detail : String((err && err.message) || err);
  if (err instanceof ApiError && err.status === 0) $error.dataset.network = '1';
  else delete $error.dataset.network;
  put($error,
    h('strong', { class: 'error-title' }, title),
    detail ? h('span', { class: 'error-detail' }, ' ', detail) : null,
    h('button', { type: 'button', class: 'link', 'aria-label': SAY.dismissLabel, onclick: clearError }, SAY.dismiss),
  );
  $error.hidden = false;
}

export function clearError() {
  delete $error.dataset.network;
  $error.hidden = true;
  put($error);
}

/** The connection is back: a message about losing it is past. */
export function clearNetworkError() {
  if ($error.dataset.network) clearError();
}

/** Says each line politely (after what the screen reader is saying). */
export function announce(lines) {
  if (!$announcer || !lines.length) return;
  for (const line of lines) $announcer.append(h('p', {}, line));
  while ($announcer.childElementCount > KEEP_ANNOUNCED) $announcer.firstElementChild.remove();
}

export function clearAnnouncements() {
  if ($announcer) put($announcer);
}
