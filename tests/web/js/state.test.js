import { test, eq } from './runner.js';
import { lineView } from './views.js';
import { acceptView, turnState, targetsFor, turnActions, legalPlays, hasTrains } from '/play/state.js';

test('a newer view is kept, an older one arriving late is let go', () => {
  const v17 = lineView();
  const v18 = lineView({ version: 18 });
  eq(acceptView(null, null, v17).view.version, 17);
  eq(acceptView(v17, null, v18).view.version, 18);
  const late = acceptView(v18, '1-5', lineView({ version: 16, legal_moves: [] }));
  eq([late.view.version, late.selected], [18, '1-5']);
});

test('a selected tile no longer playable is let go; a playable one stays selected', () => {
  const v = lineView();
  eq(acceptView(v, '1-5', lineView({ version: 18 })).selected, '1-5');
  eq(acceptView(v, '1-5', lineView({ version: 18, legal_moves: [{ type: 'draw' }] })).selected, null);
});

test('the turn state of a view', () => {
  eq(turnState(lineView()), 'your-turn');
  eq(turnState(lineView({ turn: 1, legal_moves: [] })), 'waiting');
  eq(turnState(lineView({ seat: null })), 'spectating');
  eq(turnState(lineView({ status: 'waiting' })), 'waiting-players');
  eq(turnState(lineView({ status: 'finished' })), 'over');
  eq(turnState(lineView({ status: 'aborted' })), 'over');
});

test('where the selected tile may go, and the draw and pass on offer', () => {
  const view = lineView({
    legal_moves: [
      { type: 'play', tile: '6-1', end: 'left' }, { type: 'play', tile: '6-1', end: 'right' },
      { type: 'play', tile: '3-3', end: 'right' }, { type: 'pass' },
    ],
  });
  eq(Object.keys(targetsFor(view, '6-1')), ['left', 'right']);
  eq(targetsFor(view, null), {});
  eq(legalPlays(view, '3-3'), [{ type: 'play', tile: '3-3', end: 'right' }]);
  eq(turnActions(view), { pass: { type: 'pass' } });
  eq(turnActions(lineView({ turn: 1 })), {});
  eq(targetsFor(lineView({ board: { line: [], ends: {} }, legal_moves: [{ type: 'play', tile: '6-6', end: null }] }), '6-6'),
    { start: { type: 'play', tile: '6-6', end: null } });
});

test('which board a view has', () => {
  eq(hasTrains(lineView()), false);
  eq(hasTrains(lineView({ variant: 'mexican_train' })), true);
});
