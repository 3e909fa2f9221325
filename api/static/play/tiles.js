// Domino faces as SVG: two square halves with pips, drawn upright (a over b) or lying (a left of b).

const SVGNS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

const L = 0.22, C = 0.5, R = 0.78;
// Pip centres in a unit square, for an upright half (the lying tile is the upright one turned).
const THREE_BY_THREE = {
  0: [],
  1: [[C, C]],
  2: [[L, L], [R, R]],
  3: [[L, L], [C, C], [R, R]],
  4: [[L, L], [R, L], [L, R], [R, R]],
  5: [[L, L], [R, L], [C, C], [L, R], [R, R]],
  6: [[L, L], [R, L], [L, C], [R, C], [L, R], [R, R]],
  7: [[L, L], [R, L], [L, C], [C, C], [R, C], [L, R], [R, R]],
  8: [[L, L], [C, L], [R, L], [L, C], [R, C], [L, R], [C, R], [R, R]],
  9: [[L, L], [C, L], [R, L], [L, C], [C, C], [R, C], [L, R], [C, R], [R, R]],
};

export function pipPositions(n) {
  if (n <= 9) return THREE_BY_THREE[n] || [];
  // 10-12 (double-twelve sets): two outer columns of four, and 2, 3 or 4 in the middle column.
  const ys = [0.16, 0.39, 0.61, 0.84];
  const out = [];
  for (const y of ys) out.push([0.2, y], [0.8, y]);
  const middle = { 10: [0.35, 0.65], 11: [0.2, 0.5, 0.8], 12: ys }[n] || [];
  for (const y of middle) out.push([0.5, y]);
  return out;
}

/**
 * An SVG domino face. `a` is the top half (upright) or the left half (lying).
 * options: {upright: bool, max: the set's highest pip count (colours pips in double-twelve sets), cls}
 */
export function tileSvg(a, b, { upright = true, max = 6, cls = '' } = {}) {
  const root = svg('svg', {
    viewBox: upright ? '0 0 50 100' : '0 0 100 50',
    class: `face ${upright ? 'upright' : 'lying'} ${cls}`.trim(),
    'aria-hidden': 'true',
    focusable: 'false',
  });
  const g = svg('g', upright ? {} : { transform: 'translate(0,50) rotate(-90)' });
  g.append(svg('rect', { x: 1.5, y: 1.5, width: 47, height: 97, rx: 7, class: 'body' }));
  g.append(svg('line', { x1: 8, y1: 50, x2: 42, y2: 50, class: 'divider' }));
  const r = max > 9 ? 3.7 : 4.6;
  [[a, 0], [b, 50]].forEach(([n, top]) => {
    for (const [x, y] of pipPositions(n)) {
      g.append(svg('circle', {
        cx: (5 + x * 40).toFixed(2),
        cy: (top + 5 + y * 40).toFixed(2),
        r,
        class: max > 6 ? `pip p${n}` : 'pip',
      }));
    }
  });
  root.append(g);
  return root;
}

/** The back of a tile (for opponents' hand counts). */
export function tileBack() {
  const root = svg('svg', { viewBox: '0 0 50 100', class: 'face back', 'aria-hidden': 'true', focusable: 'false' });
  root.append(svg('rect', { x: 1.5, y: 1.5, width: 47, height: 97, rx: 7, class: 'body' }));
  return root;
}

export function parseTile(tile) {
  const [a, b] = String(tile).split('-').map(Number);
  return [a, b];
}

export function isDouble(tile) {
  const [a, b] = parseTile(tile);
  return a === b;
}
