// The board: a line, All Fives' cross around the spinner, or Mexican Train's trains. Each tile on the table
// is a node keyed by its name, kept from one event to the next; the selected tile's target buttons (where it
// may go) come and go around them.

import { h, keyed, part, piece, attr } from './dom.js';
import { tileSvg } from './tiles.js';
import { placed, ghost, END_PLACES, isCross, crossLayout, trainRows } from './layout.js';
import { maxPips, over, targetsFor, hasTrains } from './state.js';
import { SAY, placeText, endsText, countText, pendingText, trainTitle, firstTurnsText } from './text.js';

function tileNode(p, max, cls = '') {
  const label = `${p.a}-${p.b}`;
  return h('span', { class: `tile ${p.double ? 'double' : ''} ${cls}`.trim(), role: 'img', 'aria-label': label, title: label },
    tileSvg(p.a, p.b, { upright: p.upright, max }));
}

/** A tile on the table, keyed by its name. */
function tileItem(p, max, cls = '') {
  return { key: p.tile, sig: `${p.a}-${p.b}:${p.upright}:${cls}`, make: () => tileNode(p, max, cls) };
}

/** A button where the selected tile may go, showing the tile as it would lie there. */
function targetItem(t, move, { along = 'row', touching = null, label }) {
  const g = ghost(move.tile, { along, touching });
  const end = move.end || 'start';
  const words = SAY.play(move.tile, label);
  return {
    key: `target:${end}`,
    sig: `${move.tile}:${g.a}-${g.b}:${g.upright}:${words}`,
    make: () => h('button', {
      type: 'button', class: 'target', 'data-key': `target:${end}`, 'data-end': end, 'aria-label': words, title: words,
      onclick: () => t.actions.play(move),
    }, tileSvg(g.a, g.b, { upright: g.upright, max: maxPips(t.view), cls: 'ghost' })),
    update: (el) => attr(el, 'disabled', t.busy),
  };
}

/** The target for a line's end ('left', 'right', 'up', 'down'), if the selected tile may go there. */
function endTarget(t, targets, end) {
  const move = targets[end];
  if (!move) return null;
  const value = (t.view.board.ends || {})[end];
  const { along, side } = END_PLACES[end];
  return targetItem(t, move, { along, touching: { side, value }, label: placeText(t.view, end, value) });
}

function captionItem(ends) {
  const text = endsText(ends);
  return text ? piece('caption', text, () => h('p', { class: 'ends muted' }, text)) : null;
}

function lineItems(t, targets) {
  const board = t.view.board;
  const max = maxPips(t.view);
  return [
    endTarget(t, targets, 'left'),
    ...board.line.map((tile) => tileItem(placed(tile), max)),
    endTarget(t, targets, 'right'),
    targets.start ? targetItem(t, targets.start, { label: placeText(t.view, 'start') }) : null,
  ];
}

function emptyLine(t, targets) {
  return part('empty', () => h('div', { class: 'line empty' }), (row) => keyed(row, [
    targets.start
      ? targetItem(t, targets.start, { label: SAY.openRound })
      : piece('empty', '', () => h('p', { class: 'muted' }, SAY.emptyTable)),
  ]));
}

function crossItems(t, targets) {
  const view = t.view;
  const board = view.board;
  const max = maxPips(view);
  const cross = crossLayout(board);
  const arm = (cls, tiles, end) => part(cls, () => h('div', { class: cls }), (el) => keyed(el, [
    ...tiles.map((p) => tileItem(p, max)),
    endTarget(t, targets, end),
  ]));
  const count = board.count;
  const caption = [
    SAY.spinner(board.spinner),
    count !== undefined && count !== null ? countText(count) : null,
    endsText(board.ends || {}),
  ];
  return [
    part('cross', () => h('div', { class: 'cross', 'data-testid': 'line' }), (el) => keyed(el, [
      arm('arm up', cross.up, 'up'),
      arm('wing left', cross.left, 'left'),
      part('spin', () => h('div', { class: 'spin' }), (spin) => keyed(spin, [tileItem(cross.spinner, max, 'spinner')])),
      arm('wing right', cross.right, 'right'),
      arm('arm down', cross.down, 'down'),
    ])),
    targets.start ? targetItem(t, targets.start, { label: placeText(view, 'start') }) : null,
    piece('caption', caption, () => h('p', { class: 'ends muted' }, caption[0],
      caption[1] !== null ? h('span', { 'data-testid': 'count' }, caption[1]) : null, caption[2])),
  ];
}

function trainItems(t, targets) {
  const view = t.view;
  const board = view.board;
  const max = maxPips(view);
  const engine = board.engine_double;
  const pending = board.pending_doubles || [];
  const waiting = board.phase === 'first' ? board.first_turn_pending || [] : [];
  const items = [
    piece('engine', [engine || null], () => h('div', { class: 'engine' },
      engine ? tileNode(placed(engine), max, 'engine-double') : null,
      h('span', {}, SAY.engine(engine)))),
    pending.length && !over(view)
      ? piece('pending', pending, () => h('p', { class: 'notice', 'data-testid': 'pending' }, pendingText(pending)))
      : null,
    waiting.length ? piece('first', firstTurnsText(view, waiting), () => h('p', { class: 'muted' }, firstTurnsText(view, waiting))) : null,
  ];
  for (const row of trainRows(board, view.seat)) {
    const label = [trainTitle(view, row.owner), row.marked && row.owner !== null, row.end];
    const move = targets[row.key];
    items.push(part(row.key, () => h('div', { 'data-testid': `train-${row.owner === null ? 'mexican' : row.owner}` }), (el) => {
      attr(el, 'class', `train ${row.mine ? 'mine' : ''} ${row.marked ? 'marked' : ''}`.trim());
      keyed(el, [
        piece('label', label, () => h('div', { class: 'train-label' },
          h('span', { class: 'train-name' }, label[0]),
          label[1] ? h('span', { class: 'marker', title: SAY.markerTitle }, SAY.marker) : null,
          h('span', { class: 'train-end muted' }, SAY.trainEnd(row.end)))),
        part('tiles', () => h('div', { class: 'train-tiles' }), (tiles) => keyed(tiles, [
          ...row.tiles.map((p) => tileItem(p, max, p.pending ? 'pending' : '')),
          move ? targetItem(t, move, { touching: { side: 'after', value: row.end }, label: placeText(view, row.key, row.end) }) : null,
        ])),
      ]);
    }));
  }
  return items;
}

/** The board's keyed item for the table (its kind decides the node; its parts are updated in place). */
export function boardItem(t) {
  const view = t.view;
  const targets = targetsFor(view, t.selected);
  let kind = 'line';
  if (hasTrains(view)) kind = 'trains';
  else if (!(view.board.line || []).length) kind = 'empty';
  else if (isCross(view.board)) kind = 'cross';
  const cls = { trains: 'board trains-board', cross: 'board line-board cross-board' }[kind] || 'board line-board';
  return {
    key: `board:${kind}`,
    sig: '',
    make: () => h('div', { class: cls, 'data-testid': 'board' }),
    update: (box) => {
      if (kind === 'trains') keyed(box, trainItems(t, targets));
      else if (kind === 'cross') keyed(box, crossItems(t, targets));
      else if (kind === 'empty') keyed(box, [emptyLine(t, targets)]);
      else {
        keyed(box, [
          part('line', () => h('div', { class: 'line', 'data-testid': 'line' }), (row) => keyed(row, lineItems(t, targets))),
          captionItem(view.board.ends || {}),
        ]);
      }
    },
  };
}

/** A tile as a small picture (the hands shown at a round's end). */
export function smallTile(view, tile) {
  return tileNode(placed(tile), maxPips(view), 'small');
}
