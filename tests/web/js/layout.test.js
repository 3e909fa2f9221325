import { test, eq } from './runner.js';
import { crossView, trainView } from './views.js';
import { placed, ghost, crossLayout, trainRows, canonical, isCross, END_PLACES } from '/play/layout.js';

const faces = (tiles) => tiles.map((p) => `${p.a}-${p.b}${p.upright ? '|' : '_'}`);

test('along a row doubles stand crosswise; along a column the others stand upright', () => {
  eq(placed('6-4'), { tile: '6-4', a: 6, b: 4, double: false, upright: false });
  eq(placed('5-5').upright, true);
  eq(placed('6-4', { along: 'column' }).upright, true);
  eq(placed('5-5', { along: 'column' }).upright, false);
  eq([placed('6-4', { flip: true }).a, placed('6-4', { flip: true }).b], [4, 6]);
});

test('a ghost tile turns so that its matching half touches the end', () => {
  // left end 4: the tile lies before it, so its right half (b) must be 4
  eq(faces([ghost('4-1', { touching: { side: 'before', value: 4 } })]), ['1-4_']);
  eq(faces([ghost('1-4', { touching: { side: 'before', value: 4 } })]), ['1-4_']);
  // right end 4: its left half (a) must be 4
  eq(faces([ghost('1-4', { touching: { side: 'after', value: 4 } })]), ['4-1_']);
  // the lower arm (a column, after the spinner)
  eq(faces([ghost('2-5', { along: 'column', touching: { side: 'after', value: 5 } })]), ['5-2|']);
  eq(faces([ghost('3-3')]), ['3-3|']);
  eq(END_PLACES.up, { along: 'column', side: 'before' });
});

test("All Fives' cross: wings outwards from the spinner, the up arm drawn flipped", () => {
  const board = crossView().board;
  eq(isCross(board), true);
  eq(isCross({ line: ['6-6'], ends: {} }), false);
  const cross = crossLayout(board);
  eq(faces([cross.spinner]), ['5-5|']);
  eq(faces(cross.left), ['2-5_']);
  eq(faces(cross.right), ['5-3_']);
  eq(faces(cross.up), ['1-5|']);
  eq(faces(cross.down), ['5-6|', '6-6_']);
  const longer = crossLayout({ ...board, line: ['1-2', '2-5', '5-5', '5-3'], spinner_index: 2 });
  eq(longer.left.map((p) => p.tile), ['2-5', '1-2'], 'the left wing is listed from the spinner outwards');
});

test("Mexican Train's trains as rows: keys, owners, markers, pending doubles", () => {
  const rows = trainRows(trainView().board, 0);
  eq(rows.map((r) => [r.key, r.mine, r.marked, r.end]),
    [['train:0', true, false, 9], ['train:1', false, true, 7], ['mexican', false, true, 12]]);
  eq(rows[0].tiles.map((t) => [t.tile, t.pending]), [['12-3', false], ['3-9', false], ['9-9', true]]);
  eq(canonical('3-9'), '9-3');
  eq(canonical('12-3'), '12-3');
});
