import { test, eq, assert } from './runner.js';
import { h, keyed, attr } from '/play/dom.js';

const item = (key, sig, log) => ({ key, sig, make: () => { log.push(key); return h('li', {}, `${key}:${sig}`); } });
const texts = (el) => [...el.children].map((c) => c.textContent);

test('keyed keeps the nodes whose key and signature did not change', () => {
  const ul = h('ul');
  const made = [];
  keyed(ul, [item('a', 1, made), item('b', 1, made), item('c', 1, made)]);
  const [a, b, c] = ul.children;
  made.length = 0;
  keyed(ul, [item('a', 1, made), item('b', 2, made), item('c', 1, made), item('d', 1, made)]);
  eq(made, ['b', 'd'], 'only the changed and the new ones are made');
  eq(texts(ul), ['a:1', 'b:2', 'c:1', 'd:1']);
  assert(ul.children[0] === a && ul.children[2] === c, 'the unchanged nodes are the same nodes');
  assert(ul.children[1] !== b, 'the changed one is new');
});

test('keyed removes what is no longer wanted and moves what is out of order', () => {
  const ul = h('ul');
  const made = [];
  keyed(ul, ['a', 'b', 'c', 'd'].map((k) => item(k, 0, made)));
  const [a, , c, d] = ul.children;
  made.length = 0;
  keyed(ul, [item('d', 0, made), null, item('a', 0, made), item('c', 0, made)]);
  eq(made, []);
  eq(texts(ul), ['d:0', 'a:0', 'c:0']);
  assert(ul.children[0] === d && ul.children[1] === a && ul.children[2] === c);
  ul.append(h('li', {}, 'stray'));
  keyed(ul, [item('a', 0, made)]);
  eq(texts(ul), ['a:0'], 'unkeyed children are dropped');
});

test('update patches a kept node in place', () => {
  const div = h('div');
  let disabled = false;
  const button = () => ({ key: 'b', sig: '', make: () => h('button', {}, 'Go'), update: (el) => { el.disabled = disabled; } });
  keyed(div, [button()]);
  const first = div.firstChild;
  disabled = true;
  keyed(div, [button()]);
  assert(div.firstChild === first && first.disabled, 'same button, now disabled');
});

test('h skips empty children and attributes; attr sets only what changes', () => {
  const el = h('p', { class: 'x', hidden: false, title: null, 'data-n': 0 }, 'a', null, [undefined, 'b', false]);
  eq([el.className, el.hasAttribute('hidden'), el.hasAttribute('title'), el.dataset.n, el.textContent], ['x', false, false, '0', 'ab']);
  attr(el, 'aria-pressed', 'true');
  attr(el, 'data-n', null);
  eq([el.getAttribute('aria-pressed'), el.hasAttribute('data-n')], ['true', false]);
});
