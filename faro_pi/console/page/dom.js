// The pages' renderer: h() and s() describe elements, patch() makes a container's children so.
//
// patch() keeps every element it can (by its key, else by its place and tag) and changes
// only the attributes, handlers and text that differ. An element the lookout is pressing or
// has focused stays the same element through a redraw, so nothing has to put the focus back.
// Shared by the console's page and the floor's (which serves this very file).

export const $ = (id) => document.getElementById(id);

const SVG = "http://www.w3.org/2000/svg";

/** Children as a flat list: arrays opened, null, undefined and false dropped, the rest as text. */
function flat(children, into = []) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) flat(child, into);
    else into.push(typeof child === "object" ? child : String(child));
  }
  return into;
}

/**
 * An HTML element to be: h("button", {class: "x", onclick: f, key: k}, "text", child...).
 *
 * ``key`` tells one of a list's elements from its neighbours across redraws; ``dataset``
 * sets data-* attributes; ``on…`` a handler; false, null or undefined leaves an attribute off.
 */
export const h = (tag, attrs, ...children) => ({ tag, attrs: attrs || {}, children: flat(children), svg: false });

/** An SVG element to be, as h() describes an HTML one. */
export const s = (tag, attrs, ...children) => ({ tag, attrs: attrs || {}, children: flat(children), svg: true });

const kebab = (name) => name.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());

/** The attributes as the DOM spells them (strings), and the handlers, of a description. */
function split(attrs) {
  const plain = {};
  const on = {};
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "key") continue;
    if (key.startsWith("on")) on[key.slice(2)] = value;
    else if (key === "dataset") {
      for (const [name, v] of Object.entries(value || {})) {
        if (v !== undefined && v !== null) plain[`data-${kebab(name)}`] = String(v);
      }
    } else if (value !== undefined && value !== null && value !== false) {
      plain[key] = value === true ? "" : String(value);
    }
  }
  return { plain, on };
}

/** Calls the element's current handler for the event: one listener per type, for its life. */
function dispatch(event) {
  const handler = this._on[event.type];
  if (handler) handler.call(this, event);
}

function update(node, vnode) {
  const { plain, on } = split(vnode.attrs);
  const before = node._attrs || {};
  for (const name of Object.keys(before)) if (!(name in plain)) node.removeAttribute(name);
  for (const [name, value] of Object.entries(plain)) {
    if (before[name] !== value) node.setAttribute(name, value);
  }
  node._attrs = plain;
  node._on ||= {};
  for (const type of Object.keys(node._on)) if (!(type in on)) node._on[type] = undefined;
  for (const [type, handler] of Object.entries(on)) {
    if (!(type in node._on)) node.addEventListener(type, dispatch);
    node._on[type] = handler;
  }
  patchChildren(node, vnode.children);
}

function create(vnode) {
  if (typeof vnode === "string") return document.createTextNode(vnode);
  const node = vnode.svg ? document.createElementNS(SVG, vnode.tag) : document.createElement(vnode.tag);
  node._key = vnode.attrs.key;
  update(node, vnode);
  return node;
}

const keyOf = (vnode) => (typeof vnode === "string" ? undefined : vnode.attrs.key);

/** Whether ``node`` can become ``vnode`` by changing its attributes and children. */
function fits(node, vnode) {
  if (typeof vnode === "string") return node.nodeType === Node.TEXT_NODE;
  return (
    node.nodeType === Node.ELEMENT_NODE &&
    node.localName === vnode.tag &&
    (node.namespaceURI === SVG) === vnode.svg &&
    node._attrs !== undefined
  );
}

function patchChildren(parent, wanted) {
  const old = [...parent.childNodes];
  const keyed = new Map();
  const unkeyed = [];
  for (const node of old) {
    if (node._key !== undefined && node._key !== null) keyed.set(node._key, node);
    else unkeyed.push(node);
  }
  // Each description's element: the old one with its key, else the next old one without.
  let next = 0;
  const nodes = wanted.map((vnode) => {
    const key = keyOf(vnode);
    let node = null;
    if (key !== undefined && key !== null) {
      node = keyed.get(key) || null;
      keyed.delete(key);
    } else if (next < unkeyed.length) {
      node = unkeyed[next++];
    }
    return node && fits(node, vnode) ? node : null;
  });
  const kept = new Set(nodes.filter(Boolean));
  for (const node of old) if (!kept.has(node)) node.remove();
  // Those kept stay where they are when their order holds: a focused one is never moved.
  wanted.forEach((vnode, at) => {
    let node = nodes[at];
    if (node === null) node = create(vnode);
    else if (typeof vnode === "string") {
      if (node.data !== vnode) node.data = vnode;
    } else update(node, vnode);
    if (parent.childNodes[at] !== node) parent.insertBefore(node, parent.childNodes[at] || null);
  });
}

/** Makes ``parent``'s children what ``children`` describe (descriptions, text, arrays of them). */
export function patch(parent, ...children) {
  patchChildren(parent, flat(children));
}
