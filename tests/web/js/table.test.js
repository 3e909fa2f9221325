import { test, eq, assert } from './runner.js';
import { lineView, crossView, trainView } from './views.js';
import { drawTable, makeTable } from '/play/table.js';

function table(view, extra = {}) {
  const t = { view, selected: null, busy: false, watch: false, confirmResign: false, actions: {}, ...extra };
  const root = makeTable();
  document.body.append(root);
  drawTable(t, root);
  return { t, root };
}

const nodes = (root, selector) => [...root.querySelectorAll(selector)];

/** The DOM changes (mutation records) made while `fn` runs. */
async function mutations(root, fn) {
  const seen = [];
  const observer = new MutationObserver((records) => seen.push(...records));
  observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
  fn();
  await Promise.resolve();
  seen.push(...observer.takeRecords());
  observer.disconnect();
  return seen;
}

test('drawing the same view again changes nothing on the page', async () => {
  for (const view of [lineView(), crossView(), trainView(), lineView({ seat: null, hand: undefined, legal_moves: undefined })]) {
    const { t, root } = table(view);
    const changes = await mutations(root, () => drawTable(t, root));
    eq(changes.length, 0, `${view.variant}: ${changes.map((m) => m.target.className || m.target.nodeName)}`);
    root.remove();
  }
});

test('a move redraws only what it changed: the tiles on the table and in the hand stay the same nodes', () => {
  const { t, root } = table(lineView());
  const board = Object.fromEntries(nodes(root, '[data-testid=line] .tile').map((el) => [el.title, el]));
  const hand = Object.fromEntries(nodes(root, '.hand-tile').map((el) => [el.dataset.tile, el]));
  const status = root.querySelector('.status-line');
  const firstLog = root.querySelector('.log li');
  t.view = lineView({
    version: 18, turn: 1, legal_moves: [], hand: ['5-2', '3-3'],
    board: { line: ['6-6', '6-4', '4-1', '1-5'], ends: { left: 6, right: 5 } },
    log: [...t.view.log, { seat: 0, type: 'play', tile: '1-5', end: 'right' }],
  });
  drawTable(t, root);
  const after = nodes(root, '[data-testid=line] .tile');
  eq(after.map((el) => el.title), ['6-6', '6-4', '4-1', '1-5']);
  assert(after[0] === board['6-6'] && after[1] === board['6-4'] && after[2] === board['4-1'], 'the tiles already down are kept');
  const handAfter = nodes(root, '.hand-tile');
  eq(handAfter.map((el) => el.dataset.tile), ['5-2', '3-3']);
  assert(handAfter[0] === hand['5-2'] && handAfter[1] === hand['3-3'], 'the hand tiles are kept');
  assert(handAfter.every((el) => el.disabled), 'and disabled: it is no longer our turn');
  assert(root.querySelector('.status-line') === status, 'the status line did not change');
  const log = nodes(root, '.log li');
  eq(log.map((el) => el.textContent), ['You played 1-5 on the right', 'greedy played 4-1 on the right']);
  assert(log[1] === firstLog, 'the earlier log line is kept; the new one goes on top');
  eq(root.dataset.turnState, 'waiting');
  eq(root.dataset.version, '18');
  root.remove();
});

test('selecting a tile adds its targets beside the tiles, turned to match the end', () => {
  const { t, root } = table(lineView());
  const tiles = nodes(root, '[data-testid=line] .tile');
  t.selected = '1-5';
  drawTable(t, root);
  const row = root.querySelector('[data-testid=line]');
  eq([...row.children].map((el) => el.classList[0]), ['tile', 'tile', 'tile', 'target']);
  const target = row.querySelector('.target');
  eq(target.getAttribute('aria-label'), 'Play 1-5 on the right end (1)');
  eq(target.dataset.end, 'right');
  assert(nodes(root, '[data-testid=line] .tile').every((el, i) => el === tiles[i]));
  eq(root.querySelector('.hand-tile.selected').dataset.tile, '1-5');
  eq(root.querySelector('[data-testid=hint]').textContent, 'Now pick where 1-5 goes on the table.');
  t.busy = true;
  drawTable(t, root);
  assert(row.querySelector('.target') === target && target.disabled, 'the target is kept, disabled while the move is sent');
  root.remove();
});

test("All Fives' cross and Mexican Train's trains are drawn as before", () => {
  const cross = table(crossView()).root;
  const parts = ['.arm.up', '.wing.left', '.wing.right', '.arm.down'];
  eq(parts.map((part) => nodes(cross, `.cross > ${part} .tile`).length), [1, 1, 1, 2]);
  eq(cross.querySelector('.spin .tile.spinner').title, '5-5');
  eq(cross.querySelector('[data-testid=count]').textContent, 'Ends count 12. ');
  assert(cross.querySelector('[data-testid=board]').classList.contains('cross-board'));
  cross.remove();
  const { root } = table(trainView(), { selected: '9-2' });
  eq(nodes(root, '[data-testid^=train-]').map((el) => el.dataset.testid), ['train-0', 'train-1', 'train-mexican']);
  eq(root.querySelector('[data-testid=train-0]').className, 'train mine');
  eq(root.querySelector('[data-testid=train-1] .marker').textContent, 'marker: open to all');
  eq(nodes(root, '.tile.pending').map((el) => el.title), ['9-9']);
  eq(root.querySelector('[data-testid=pending]').textContent, 'Double 9-9 must be covered before anything else is played.');
  eq(root.querySelector('[data-testid=train-0] .target').getAttribute('aria-label'), 'Play 9-2 on your train (9)');
  root.remove();
});
