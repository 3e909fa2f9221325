// Building elements, and updating a container in place: each child is keyed, and a child whose key and
// signature did not change is kept as it is (its node, its focus, its SVG), so an event redraws only the
// parts of the table it changed.

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// replaceChildren() would print null as "null": drop the empty parts.
export function put(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

/** Sets an attribute only when it changes (null or false: removed; true: present and empty). */
export function attr(el, name, value) {
  if (value === null || value === undefined || value === false) {
    if (el.hasAttribute(name)) el.removeAttribute(name);
    return;
  }
  const text = value === true ? '' : String(value);
  if (el.getAttribute(name) !== text) el.setAttribute(name, text);
}

export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

const META = new WeakMap(); // node -> {key, sig}

/**
 * Makes `container`'s children the `items` in order. An item is {key, sig, make(), update?(node)}: a child
 * made for the same key and signature is kept, else make() builds a new one; update(node), when given, then
 * patches what may change without a new node (disabled, classes). Null items are skipped. Children that no
 * item wants are removed; kept children are moved only when out of order.
 */
export function keyed(container, items) {
  const old = new Map();
  for (const child of [...container.childNodes]) {
    const meta = META.get(child);
    if (meta && !old.has(meta.key)) old.set(meta.key, child);
    else child.remove();
  }
  const nodes = [];
  for (const item of items) {
    if (!item) continue;
    const sig = item.sig === undefined ? '' : String(item.sig);
    let node = old.get(item.key);
    if (node && META.get(node).sig === sig) old.delete(item.key);
    else {
      node = item.make();
      META.set(node, { key: item.key, sig });
    }
    if (item.update) item.update(node);
    nodes.push(node);
  }
  for (const stale of old.values()) stale.remove();
  let at = container.firstChild;
  for (const node of nodes) {
    if (node === at) at = at.nextSibling;
    else container.insertBefore(node, at);
  }
}

/** A keyed item built once and updated in place ever after (a section whose parts are keyed in turn). */
export function part(key, make, update) {
  return { key, sig: '', make, update };
}

/** A keyed item rebuilt whenever its data (compared as JSON) changes. */
export function piece(key, data, make) {
  return { key, sig: JSON.stringify(data), make };
}
