// The replay page's drawing: the controls, the caption (a live region: the step shown, in words), the board
// (board.js, as a spectator's table), every hand, the scores round by round, the round's result, the
// analysis of the move shown, and the list of moves by round. Built once, then updated in place per step.
//
// `r` is the open replay (see replay.js): its steps, the step shown (`at`), whether the game is live, its
// analysis, and its actions.

import { h, keyed, part, piece, attr, setText } from './dom.js';
import { tileBack } from './tiles.js';
import { boardItem, smallTile } from './board.js';
import { gameOverItem, roundResultItem } from './table.js';
import { analysisAt } from './replay-state.js';
import * as text from './text.js';

const { SAY } = text;

// A move that lost more than this is not an accurate one (the analysis's accuracy, docs/analysis.md).
const INACCURATE = 0.5;

const CONTROLS = [
  ['first', SAY.first, SAY.firstLabel, '|◀'], ['back', SAY.back, SAY.backLabel, '◀'],
  ['forward', SAY.forward, SAY.forwardLabel, '▶'], ['last', SAY.last, SAY.lastLabel, '▶|'],
];

/** The page's frame: heading, controls, caption, then the table and its side. */
export function makeReplay(r) {
  const buttons = CONTROLS.map(([key, word, label, icon]) => h('button', {
    type: 'button', class: 'step-button', 'data-testid': `replay-${key}`, 'aria-label': label, title: label,
    'aria-keyshortcuts': { first: 'Home', back: 'ArrowLeft', forward: 'ArrowRight', last: 'End' }[key],
    onclick: () => r.actions[key](),
  }, h('span', { 'aria-hidden': 'true' }, icon), ` ${word}`));
  return h('section', { class: 'replay', 'data-testid': 'replay' },
    h('header', { class: 'card replay-head' },
      h('h1', {}, SAY.replayTitle(r.id)),
      h('p', { class: 'replay-about' }),
      h('p', { class: 'replay-links tools' })),
    h('div', { class: 'card replay-controls' },
      h('div', { role: 'toolbar', 'aria-label': SAY.replayControls, class: 'step-buttons' }, buttons),
      h('span', { class: 'replay-position muted', 'data-testid': 'replay-position' }),
      h('p', { class: 'replay-caption', role: 'status', 'aria-live': 'polite', 'aria-atomic': 'true', 'data-testid': 'replay-caption' }),
      h('p', { class: 'hint' }, SAY.keysHint)),
    h('div', { class: 'table', 'data-testid': 'table' }, h('div', { class: 'play-area' }), h('aside', { class: 'side' })));
}

function aboutItems(r) {
  const first = r.steps[0];
  const about = [text.variantName(r.history.variant), first ? text.goalText(r.steps[r.at]) : ''];
  let status = r.live ? SAY.replayLive : SAY.replayFinished;
  if (!r.live && !r.history.deals) status = SAY.replayUnrevealed; // an arena's game, until the arena ends
  return [about.filter(Boolean).join(' · '), status];
}

function statusItem(step) {
  const data = [step.round, step.boneyard_count, step.out_of_play_count, step.version];
  return piece('status', data, () => h('div', { class: 'status-line' },
    h('span', { class: 'variant' }, text.variantName(step.variant)),
    h('span', {}, text.goalText(step)),
    h('span', { 'data-testid': 'replay-boneyard' }, SAY.boneyard(step.boneyard_count)),
    h('span', { class: 'muted' }, `version ${step.version}`)));
}

/** A seat: its name, score and tiles (every tile once revealed, else the backs of as many). */
function handItem(step, s, mover) {
  const hand = step.hands ? step.hands[s.seat] : null;
  const data = [text.seatName(step, s.seat), step.scores[s.seat], hand, s.hand_count, mover, step.winners.includes(s.seat)];
  return piece(`seat:${s.seat}`, data, () => {
    const tiles = hand
      ? h('span', { class: 'left-tiles', 'data-testid': `hand-${s.seat}`, 'aria-label': hand.join(', ') || SAY.tiles(0) },
        hand.map((tile) => smallTile(step, tile)))
      : h('span', { class: 'backs', 'data-testid': `hand-${s.seat}`, 'data-hidden': 'true', 'aria-label': `${SAY.tiles(s.hand_count)} ${SAY.handsHidden}` },
        Array.from({ length: Math.min(s.hand_count, 21) }, () => tileBack()));
    const cls = `seat-card ${mover ? 'turn' : ''} ${data[5] ? 'winner' : ''}`.trim();
    return h('li', { class: cls, 'aria-current': mover ? 'true' : null },
      h('div', { class: 'seat-head' },
        h('span', { class: 'seat-name' }, data[0]),
        h('span', { class: `kind ${s.kind}` }, s.kind === 'bot' ? SAY.computerKind : s.kind)),
      h('div', { class: 'seat-body' },
        h('span', { class: 'score' }, h('span', { class: 'score-value', 'data-testid': `score-${s.seat}` }, String(step.scores[s.seat])), SAY.pts),
        h('span', { class: 'hand-count' }, SAY.tiles(s.hand_count)),
        tiles));
  });
}

/** The points of every round finished by this step, and the totals. */
function scoresItem(r, step) {
  const rounds = [];
  for (const s of r.steps.slice(0, r.at + 1)) {
    if (s.last_round && !rounds.some((x) => x.round === s.last_round.round)) rounds.push(s.last_round);
  }
  if (!rounds.length) return null;
  const names = step.seats.map((s) => text.seatName(step, s.seat));
  return piece('scores', [rounds.map((x) => x.points), names, step.scores], () => h('section', { class: 'card round-scores' },
    h('h2', {}, text.SAY.scoresByRound),
    h('table', { 'data-testid': 'round-scores' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, SAY.roundWord), names.map((n) => h('th', { scope: 'col' }, n)))),
      h('tbody', {}, rounds.map((x) => h('tr', {}, h('th', { scope: 'row' }, String(x.round)), x.points.map((p) => h('td', {}, `+${p}`))))),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, SAY.total), step.scores.map((p) => h('td', {}, h('strong', {}, String(p)))))))));
}

function analysisBody(r, step) {
  const a = r.analysis;
  if (r.live) return [h('p', { class: 'muted' }, SAY.analysisLive)];
  if (!a || a.status === 'none') {
    return [h('p', { class: 'muted' }, SAY.analysisNone),
      h('button', { type: 'button', class: 'primary', 'data-testid': 'analyse', onclick: () => r.actions.analyse() }, SAY.analyse)];
  }
  if (a.status === 'queued') return [h('p', { 'data-testid': 'analysis-status' }, SAY.analysisQueued)];
  if (a.status === 'running') return [h('p', { 'data-testid': 'analysis-status' }, SAY.analysisRunning(a.progress || 0))];
  if (a.status === 'failed') return [h('p', { 'data-testid': 'analysis-status' }, SAY.analysisFailed)];
  const move = analysisAt(a, step);
  if (!move) return [h('p', { class: 'muted', 'data-testid': 'analysis-move' }, SAY.noChoice)];
  const same = (x, y) => x.type === y.type && x.tile === y.tile && (x.end || null) === (y.end || null);
  const values = [...move.values].sort((x, y) => y.value - x.value);
  return [h('dl', { class: 'analysis-move', 'data-testid': 'analysis-move' },
    h('dt', {}, SAY.played), h('dd', { 'data-testid': 'analysis-played' }, `${text.seatName(step, move.seat)}: ${text.moveText(move.played)}`),
    h('dt', {}, SAY.best), h('dd', { 'data-testid': 'analysis-best' }, text.moveText(move.best)),
    h('dt', {}, SAY.loss), h('dd', { 'data-testid': 'analysis-loss' }, SAY.lossText(move.loss))),
  h('table', { class: 'values' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, SAY.moves), h('th', { scope: 'col' }, SAY.value))),
    h('tbody', {}, values.map((v) => h('tr', { class: same(v.move, move.played) ? 'played' : null },
      h('td', {}, text.moveText(v.move)), h('td', {}, v.value.toFixed(2))))))];
}

function analysisItem(r, step) {
  const a = r.analysis;
  const move = analysisAt(a, step);
  const data = [r.live, a && a.status, a && a.progress, move, step.kind, step.version];
  return piece('analysis', data, () => h('section', { class: 'card analysis', 'data-testid': 'analysis' },
    h('h2', {}, SAY.analysis),
    analysisBody(r, step),
    a && a.status === 'done' ? h('p', { class: 'muted accuracy' }, a.seats.map((s) => text.accuracyText(step, s)).join(' · ')) : null));
}

/** Every step as a button, grouped by round (the round's boundaries), with the loss of each analysed move
 * that lost more than the accuracy's half point; the step shown is marked current. */
function movesItem(r) {
  const analysed = Boolean(r.analysis && r.analysis.status === 'done');
  return part(`moves:${analysed}:${r.steps.length}`, () => {
    const rounds = [];
    r.steps.forEach((step, i) => {
      if (!rounds.length || step.kind === 'deal') rounds.push({ round: step.round, items: [] });
      const move = analysed ? analysisAt(r.analysis, step) : null;
      rounds[rounds.length - 1].items.push(h('li', {}, h('button', {
        type: 'button', class: 'link step-link', 'data-step': i, onclick: () => r.actions.go(i),
      }, `${step.version}. ${text.stepText(step)}`,
      move && move.loss > INACCURATE ? h('span', { class: 'loss', 'data-testid': 'step-loss' }, SAY.lossShort(move.loss)) : null)));
    });
    return h('section', { class: 'card moves-list', 'data-testid': 'moves-list' },
      h('h2', {}, SAY.moves),
      rounds.map((x) => h('div', { class: 'moves-round' }, h('h3', {}, SAY.roundHeading(x.round)), h('ol', { class: 'plain' }, x.items))));
  }, (el) => {
    for (const b of el.querySelectorAll('.step-link')) attr(b, 'aria-current', Number(b.dataset.step) === r.at ? 'step' : null);
  });
}

/** Draws step `r.at` into the page made by makeReplay. */
export function drawReplay(r, root) {
  const step = r.steps[r.at];
  const [head, controls, table] = root.children;
  const [about, status] = aboutItems(r);
  setText(head.children[1], about);
  const links = head.children[2];
  if (!links.childElementCount) {
    links.append(r.live ? h('a', { href: `/play/watch?game=${encodeURIComponent(r.id)}` }, SAY.watchLive) : '',
      r.live ? ' · ' : '', h('a', { href: `/play#watch=${encodeURIComponent(r.id)}` }, SAY.openTable));
    if (r.live) links.append(' · ', h('button', { type: 'button', class: 'link', 'data-testid': 'catch-up', onclick: () => r.actions.catchUp() }, SAY.replayCatchUp));
  }
  attr(root, 'data-live', r.live ? 'true' : null);
  attr(root, 'data-version', step.version);
  attr(root, 'data-step', r.at);
  attr(root, 'data-steps', r.steps.length);
  const [buttons, position, caption] = controls.children;
  const [first, back, forward, last] = buttons.children;
  attr(first, 'disabled', r.at === 0);
  attr(back, 'disabled', r.at === 0);
  attr(forward, 'disabled', r.at === r.steps.length - 1);
  attr(last, 'disabled', r.at === r.steps.length - 1);
  setText(position, SAY.stepOf(r.at, r.steps.length, step.version));
  setText(caption, text.stepText(step));
  const mover = step.moves.length ? step.moves[0].seat : null;
  const t = { view: step, selected: null, busy: false, outcome: step.outcome, resigned: step.resigned, token: null, replaying: true };
  const [play, side] = table.children;
  keyed(play, [
    piece('live', [r.live, status], () => h('p', { class: r.live ? 'live-note' : 'muted', 'data-testid': 'replay-status' }, status)),
    statusItem(step),
    step.kind === 'end' ? gameOverItem(t) : null,
    boardItem(t),
    step.kind === 'round' || step.kind === 'end' ? roundResultItem(t) : null,
  ]);
  keyed(side, [
    part('seats', () => h('ul', { class: 'seats', 'data-testid': 'seats', 'aria-label': SAY.hands }),
      (ul) => keyed(ul, step.seats.map((s) => handItem(step, s, s.seat === mover)))),
    step.team_scores ? piece('teams', text.teamScoresText(step), () => h('p', { class: 'teams' }, text.teamScoresText(step))) : null,
    scoresItem(r, step),
    analysisItem(r, step),
    movesItem(r),
  ]);
}
