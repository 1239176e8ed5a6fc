// Reasonix web UI (docs/SERVE.md): sessions, their event streams drawn as a transcript, tool
// cards with diffs, approvals, and a composer with `@` paths and `/` commands.
//
// Everything shown comes from a model, a tool or a repository, so nothing is ever inserted as
// HTML: every node is built with createElement and its text set with textContent. Links are
// kept only when they are http(s). The page's Content-Security-Policy allows this script only.
'use strict';

const API = '/api/v1';
const EVENT_TYPES = [
  'session_started', 'turn_started', 'user_message', 'request_started', 'retry', 'text_delta',
  'reasoning_delta', 'stream_restarted', 'assistant_message', 'tool_preview', 'tool_started',
  'tool_progress', 'tool_finished', 'permission_denied', 'subagent_started', 'subagent_finished',
  'tools_changed', 'usage', 'notice', 'compacted', 'question', 'question_closed',
  'session_changed', 'model_changed', 'rewound', 'op_failed', 'turn_finished', 'gap',
];
// Characters of a tool's output shown in its card; the model got all of it.
const OUTPUT_SHOWN = 12000;
// Lines a diff is drawn with at most; a longer change is summed up.
const DIFF_LINES = 4000;
// Unchanged lines kept around a change.
const DIFF_CONTEXT = 3;
// Commands the page does itself; every other `/name` is sent and the session expands it.
const PAGE_COMMANDS = [
  { name: 'new', description: 'a new session in this folder' },
  { name: 'compact', description: 'compact the history now', hint: '[focus]' },
  { name: 'model', description: 'go on with another model', hint: '<provider/model>' },
  { name: 'mode', description: 'permission mode: ask, acceptEdits, auto or plan', hint: '<mode>' },
  { name: 'stop', description: 'stop the turn in progress' },
  { name: 'close', description: 'end this session' },
];

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- DOM helpers

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function safeHref(url) {
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------- Markdown

// A small CommonMark subset, built as DOM nodes: headings, paragraphs, fenced and indented
// code, lists, quotes, tables, rules; inline code, strong, emphasis, strike, links.
function renderMarkdown(source) {
  const out = document.createDocumentFragment();
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  let i = 0;
  const isBlank = (line) => /^\s*$/.test(line);
  const startsBlock = (line) =>
    /^\s{0,3}(```|~~~|#{1,6}\s|>|[-*+]\s|\d{1,9}[.)]\s|(\*\s*){3,}$|(-\s*){3,}$|(_\s*){3,}$)/.test(line);
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) { i++; continue; }
    const fence = line.match(/^\s{0,3}(```+|~~~+)\s*([^`\s]*)/);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trimStart().startsWith(fence[1])) body.push(lines[i++]);
      i++;
      const code = el('code', { text: body.join('\n') });
      if (fence[2]) code.dataset.lang = fence[2];
      out.append(el('pre', {}, code));
      continue;
    }
    const heading = line.match(/^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (heading) {
      out.append(el('h' + heading[1].length, {}, inline(heading[2])));
      i++;
      continue;
    }
    if (/^\s{0,3}((\*\s*){3,}|(-\s*){3,}|(_\s*){3,})$/.test(line)) {
      out.append(el('hr'));
      i++;
      continue;
    }
    if (/^\s{0,3}>/.test(line)) {
      const body = [];
      while (i < lines.length && /^\s{0,3}>/.test(lines[i])) body.push(lines[i++].replace(/^\s{0,3}>\s?/, ''));
      out.append(el('blockquote', {}, renderMarkdown(body.join('\n'))));
      continue;
    }
    const item = line.match(/^(\s*)([-*+]|\d{1,9}[.)])\s+/);
    if (item) {
      const ordered = /\d/.test(item[2]);
      const list = el(ordered ? 'ol' : 'ul');
      if (ordered && parseInt(item[2], 10) !== 1) list.setAttribute('start', String(parseInt(item[2], 10)));
      const indent = item[1].length;
      while (i < lines.length) {
        const m = lines[i].match(/^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/);
        if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
        const body = [m[3]];
        i++;
        while (i < lines.length && !isBlank(lines[i])) {
          const next = lines[i].match(/^(\s*)([-*+]|\d{1,9}[.)])\s+/);
          if (next && next[1].length <= indent) break;
          body.push(lines[i].replace(new RegExp('^\\s{0,' + (indent + 4) + '}'), ''));
          i++;
        }
        const task = body[0].match(/^\[([ xX])\]\s+(.*)$/);
        const li = el('li');
        if (task) {
          li.append(el('input', { type: 'checkbox', disabled: true, checked: task[1] !== ' ' }), ' ');
          body[0] = task[2];
        }
        if (body.length === 1) li.append(inline(body[0]));
        else li.append(renderMarkdown(body.join('\n')));
        list.append(li);
        if (i < lines.length && isBlank(lines[i]) && i + 1 < lines.length) {
          const after = lines[i + 1].match(/^(\s*)([-*+]|\d{1,9}[.)])\s+/);
          if (after && after[1].length === indent) i++;
        }
      }
      out.append(list);
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(lines[i + 1])) {
      const cells = (row) => row.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((c) => c.trim());
      const table = el('table');
      table.append(el('thead', {}, el('tr', {}, cells(line).map((c) => el('th', {}, inline(c))))));
      const tbody = el('tbody');
      i += 2;
      while (i < lines.length && lines[i].includes('|') && !isBlank(lines[i])) {
        tbody.append(el('tr', {}, cells(lines[i++]).map((c) => el('td', {}, inline(c)))));
      }
      table.append(tbody);
      out.append(table);
      continue;
    }
    if (/^( {4}|\t)/.test(line)) {
      const body = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || isBlank(lines[i]))) body.push(lines[i++].replace(/^( {4}|\t)/, ''));
      out.append(el('pre', {}, el('code', { text: body.join('\n').replace(/\n+$/, '') })));
      continue;
    }
    const para = [line];
    i++;
    while (i < lines.length && !isBlank(lines[i]) && !startsBlock(lines[i])) para.push(lines[i++]);
    const p = el('p');
    para.forEach((text, n) => {
      if (n > 0) p.append(/ {2}$|\\$/.test(para[n - 1]) ? el('br') : '\n');
      p.append(inline(text.replace(/ {2}$|\\$/, '')));
    });
    out.append(p);
  }
  return out;
}

function inline(text) {
  const out = document.createDocumentFragment();
  const pattern = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([^*]+?)\*\*|__([^_]+?)__|~~([^~]+?)~~|\*([^*\s][^*]*?)\*|(?<![\w])_([^_\s][^_]*?)_(?![\w])|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])/g;
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > last) out.append(text.slice(last, m.index));
    if (m[1]) out.append(el('code', { text: m[2].replace(/^ (.*) $/, '$1') }));
    else if (m[3] !== undefined || m[4] !== undefined) out.append(el('strong', {}, inline(m[3] ?? m[4])));
    else if (m[5] !== undefined) out.append(el('del', {}, inline(m[5])));
    else if (m[6] !== undefined || m[7] !== undefined) out.append(el('em', {}, inline(m[6] ?? m[7])));
    else if (m[8] !== undefined) {
      const href = safeHref(m[9]);
      out.append(href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer' }, inline(m[8])) : m[0]);
    } else if (m[10]) {
      const href = safeHref(m[10]);
      out.append(href ? el('a', { href, target: '_blank', rel: 'noopener noreferrer', text: m[10] }) : m[10]);
    }
    last = m.index + m[0].length;
  }
  if (last < text.length) out.append(text.slice(last));
  return out;
}

// ---------------------------------------------------------------- diffs

// Myers' diff of two line lists: [kind, oldNo, newNo, text] with kind ' ', '-' or '+'.
function diffLines(a, b) {
  const n = a.length, m = b.length, max = n + m;
  const v = new Int32Array(2 * max + 2);
  const trace = [];
  let done = false;
  for (let d = 0; d <= max && !done; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[max + k - 1] < v[max + k + 1]) ? v[max + k + 1] : v[max + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) { x++; y++; }
      v[max + k] = x;
      if (x >= n && y >= m) { done = true; break; }
    }
    if (trace.length > 2000) return null;
  }
  const ops = [];
  let x = n, y = m;
  for (let d = trace.length - 1; d >= 0 && (x > 0 || y > 0); d--) {
    const vd = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[max + k - 1] < vd[max + k + 1]) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[max + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) { ops.push([' ', x, y, a[x - 1]]); x--; y--; }
    if (d > 0) {
      if (x === prevX) { ops.push(['+', null, y, b[y - 1]]); y--; }
      else { ops.push(['-', x, null, a[x - 1]]); x--; }
    }
  }
  return ops.reverse();
}

function splitLines(text) {
  if (!text) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

// A path as the user knows it: from the workspace when it is inside.
function shortPath(file, cwd) {
  return cwd && file.startsWith(cwd.replace(/\/$/, '') + '/') ? file.slice(cwd.replace(/\/$/, '').length + 1) : file;
}

function renderDiff(change, cwd) {
  const kinds = { create: 'new file', modify: 'changed', delete: 'deleted' };
  const box = el('div', { class: 'diff' }, el('div', { class: 'file', text: `${shortPath(change.path, cwd)} — ${kinds[change.kind] || change.kind}` }));
  const before = splitLines(change.old_text), after = splitLines(change.new_text);
  let ops = before.length + after.length <= DIFF_LINES ? diffLines(before, after) : null;
  if (!ops) {
    box.append(el('div', { class: 'file', text: `${before.length} lines → ${after.length} lines (too large to draw)` }));
    return box;
  }
  const table = el('table');
  const changed = ops.map((op) => op[0] !== ' ');
  const near = (idx) => {
    for (let j = Math.max(0, idx - DIFF_CONTEXT); j <= Math.min(ops.length - 1, idx + DIFF_CONTEXT); j++) if (changed[j]) return true;
    return false;
  };
  let skipped = 0;
  const flush = () => {
    if (skipped) table.append(el('tr', { class: 'skip' }, el('td', { colspan: 4, text: `⋯ ${skipped} unchanged line${skipped === 1 ? '' : 's'}` })));
    skipped = 0;
  };
  ops.forEach((op, idx) => {
    if (op[0] === ' ' && !near(idx)) { skipped++; return; }
    flush();
    const cls = op[0] === '+' ? 'add' : op[0] === '-' ? 'del' : '';
    table.append(el('tr', { class: cls || null },
      el('td', { class: 'n', text: op[1] ?? '' }), el('td', { class: 'n', text: op[2] ?? '' }),
      el('td', { class: 'n', text: op[0] }), el('td', { text: op[3] })));
  });
  flush();
  box.append(el('div', { class: 'lines' }, table));
  return box;
}

// ---------------------------------------------------------------- API

class Unauthorized extends Error {}

async function api(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(API + path, init);
  if (response.status === 401) throw new Unauthorized();
  let data = null;
  try { data = await response.json(); } catch { /* no JSON */ }
  if (!response.ok) throw new Error((data && data.error) || `${method} ${path}: HTTP ${response.status}`);
  return data;
}

async function login(token) {
  const response = await fetch(API + '/login', {
    method: 'POST', credentials: 'same-origin', headers: { Authorization: 'Bearer ' + token },
  });
  return response.ok;
}

function showBanner(text) {
  const banner = $('banner');
  banner.textContent = text;
  banner.hidden = !text;
}

function failed(error) {
  if (error instanceof Unauthorized) showLogin('');
  else showBanner(String(error.message || error));
}

// ---------------------------------------------------------------- the transcript

// One session's view: its transcript and what the status line shows, built from its events.
class View {
  constructor(info) {
    this.info = info;
    this.root = $('transcript');
    this.cards = new Map();
    this.questions = new Map();
    this.answer = null;
    this.thinking = null;
    this.pending = new Set();
    this.busy = false;
    this.usage = { prompt: 0, completion: 0, hit: 0, miss: 0 };
    this.cost = null;
    this.model = info.model;
    this.frame = 0;
  }

  stickToBottom(fn) {
    const r = this.root;
    const atEnd = r.scrollHeight - r.scrollTop - r.clientHeight < 80;
    fn();
    if (atEnd) r.scrollTop = r.scrollHeight;
  }

  atEnd() {
    const r = this.root;
    return r.scrollHeight - r.scrollTop - r.clientHeight < 80;
  }

  add(node) {
    this.stickToBottom(() => this.root.append(node));
    return node;
  }

  note(text, error) {
    this.add(el('div', { class: error ? 'note error' : 'note', text }));
  }

  // Deltas arrive many per frame: draw once per animation frame.
  schedule(target) {
    this.pending.add(target);
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.stickToBottom(() => {
        for (const t of this.pending) t.draw();
      });
      this.pending.clear();
    });
  }

  answerBox() {
    if (!this.answer) {
      const node = this.add(el('article', { class: 'msg assistant' }));
      this.answer = { text: '', node, draw() { node.replaceChildren(renderMarkdown(this.text)); } };
    }
    return this.answer;
  }

  thinkingBox() {
    if (!this.thinking) {
      const body = el('div', { class: 'body' });
      const node = this.add(el('details', { class: 'thinking' }, el('summary', { text: 'Thinking' }), body));
      this.thinking = { text: '', node, draw() { body.textContent = this.text; } };
    }
    return this.thinking;
  }

  card(callId, name, agent) {
    let card = this.cards.get(callId);
    if (!card) {
      const header = el('header', {}, el('span', { class: 'tool', text: name || 'tool' }), el('span', { class: 'summary' }), el('span', { class: 'state' }));
      const node = el('section', { class: 'card', 'data-call': callId, 'data-state': 'waiting' }, header);
      if (agent) header.prepend(el('span', { class: 'state', text: agent }));
      card = { node, header, diffShown: false };
      this.cards.set(callId, card);
      this.endAnswer();
      this.add(node);
    }
    return card;
  }

  endAnswer() {
    this.answer = null;
    this.thinking = null;
  }

  setState(card, state, label) {
    card.node.dataset.state = state;
    card.header.querySelector('.state:last-child').textContent = label;
  }

  setBusy(busy) {
    this.busy = busy;
    if (current === this) drawChrome();
  }

  handle(e) {
    const sub = e.agent_id && e.agent_id !== 'main';
    switch (e.type) {
      case 'session_started':
        this.model = `${e.provider}/${e.model}`;
        this.note(`Session in ${e.cwd} · ${this.model} · ${e.tools.length} tools · ${e.permission_mode}` +
          (e.resumed_messages ? ` · continues ${e.resumed_messages} saved messages` : ''));
        break;
      case 'turn_started':
        if (!sub) { this.endAnswer(); this.setBusy(true); }
        break;
      case 'user_message':
        if (!sub) this.add(el('div', { class: 'msg user', text: e.text }));
        break;
      case 'retry':
        this.note(`${e.provider}: retry ${e.attempt}/${e.max_retries} in ${(e.delay_ms / 1000).toFixed(1)} s — ${e.reason}`);
        break;
      case 'text_delta':
        if (!sub) { const a = this.answerBox(); a.text += e.text; this.schedule(a); }
        break;
      case 'reasoning_delta':
        if (!sub) { const t = this.thinkingBox(); t.text += e.text; this.schedule(t); }
        break;
      case 'stream_restarted':
        if (!sub) {
          const box = e.reasoning ? this.thinking : this.answer;
          if (box) { box.text = ''; this.schedule(box); }
        }
        break;
      case 'assistant_message':
        if (!sub) {
          if (e.text) { const a = this.answerBox(); a.text = e.text; this.schedule(a); }
          this.endAnswer();
        }
        break;
      case 'tool_preview': {
        const card = this.card(e.call_id, null, sub ? e.agent_id : null);
        if (!card.diffShown) { card.node.append(...e.changes.map((c) => renderDiff(c, this.info.cwd))); card.diffShown = true; }
        break;
      }
      case 'tool_started': {
        const card = this.card(e.call_id, e.name, sub ? e.agent_id : null);
        card.header.querySelector('.tool').textContent = e.name;
        card.header.querySelector('.summary').textContent = summarize(e.name, e.arguments);
        this.setState(card, 'running', 'running…');
        break;
      }
      case 'tool_progress': {
        const card = this.card(e.call_id);
        let line = card.node.querySelector('.progress');
        if (!line) line = card.node.appendChild(el('div', { class: 'progress' }));
        line.textContent = e.fraction != null ? `${Math.round(e.fraction * 100)} % · ${e.message}` : e.message;
        break;
      }
      case 'tool_finished': {
        const card = this.card(e.call_id, e.name, sub ? e.agent_id : null);
        card.node.querySelector('.progress')?.remove();
        this.setState(card, e.is_error ? 'failed' : 'done', `${e.is_error ? 'failed' : 'done'} · ${formatMs(e.duration_ms)}`);
        const shown = e.output.length > OUTPUT_SHOWN
          ? e.output.slice(0, OUTPUT_SHOWN) + `\n… ${e.output.length - OUTPUT_SHOWN} more characters`
          : e.output;
        const details = el('details', {}, el('summary', { text: `output · ${e.output.length} characters` }), el('pre', { class: 'output', text: shown }));
        if (e.is_error) details.open = true;
        card.node.append(details);
        break;
      }
      case 'permission_denied': {
        const card = this.card(e.call_id, e.name, sub ? e.agent_id : null);
        card.header.querySelector('.summary').textContent = summarize(e.name, e.arguments);
        this.setState(card, 'denied', 'not run');
        card.node.append(el('div', { class: 'reason', text: e.reason }));
        break;
      }
      case 'subagent_started':
        this.note(`sub-agent ${e.profile} (${e.model}): ${e.description}`);
        break;
      case 'subagent_finished':
        this.note(`sub-agent ${e.agent_id}: ${e.status} after ${e.steps} requests`);
        break;
      case 'tools_changed':
        this.note(`tools changed: ${[...e.added.map((t) => '+' + t), ...e.removed.map((t) => '−' + t)].join(' ')}`);
        break;
      case 'usage':
        if (!sub) {
          this.usage.prompt = e.prompt_tokens;
          this.usage.completion = e.completion_tokens;
          this.usage.hit += e.cache_hit_tokens;
          this.usage.miss += e.cache_miss_tokens;
          if (current === this) drawChrome();
        }
        break;
      case 'notice':
        this.note(e.text);
        break;
      case 'compacted':
        this.note(`history compacted (${e.tier}): ~${formatTokens(e.tokens_before)} → ~${formatTokens(e.tokens_after)} tokens`);
        break;
      case 'question':
        this.question(e);
        break;
      case 'question_closed':
        this.closeQuestion(e);
        break;
      case 'session_changed':
        this.note(`now session ${e.session_id} (${e.messages} messages)`);
        break;
      case 'model_changed':
        this.model = `${e.provider}/${e.model}`;
        this.note(`model: ${this.model} from the next turn`);
        if (current === this) drawChrome();
        break;
      case 'rewound':
        this.note(`rewound: ${e.messages} messages` + (e.files_restored ? `, ${e.files_restored} files restored` : ''));
        break;
      case 'op_failed':
        this.note(e.error, true);
        break;
      case 'turn_finished':
        if (!sub) {
          this.endAnswer();
          if (e.cost) this.cost = { total: (this.cost ? this.cost.total : 0) + e.cost.total, currency: e.cost.currency };
          if (e.status !== 'success') this.note(`${e.status.replace('_', ' ')}: ${e.result}`, e.status === 'error');
          this.setBusy(false);
        }
        break;
      case 'gap':
        this.note('earlier events are no longer kept by the server', false);
        break;
    }
  }

  question(e) {
    const args = prettyArgs(e.arguments);
    const node = el('section', { class: 'card question', 'data-question': e.question_id, 'data-call': e.call_id },
      el('header', {}, el('span', { class: 'tool', text: e.tool }), el('span', { class: 'summary', text: summarize(e.tool, e.arguments) }),
        el('span', { class: 'state', text: e.agent ? `asked by ${e.agent}` : 'waiting for you' })),
      el('div', { class: 'reason', text: e.reason }));
    if (e.plan) node.append(el('div', { class: 'plan msg' }, renderMarkdown(e.plan)));
    if (e.changes && e.changes.length) node.append(...e.changes.map((c) => renderDiff(c, this.info.cwd)));
    else node.append(el('pre', { class: 'args', text: args }));
    if (e.preview_error) node.append(el('div', { class: 'reason', text: `No preview: ${e.preview_error}` }));
    const actions = el('div', { class: 'actions' });
    const once = el('button', { type: 'button', class: 'primary', text: e.plan ? 'Approve plan' : 'Allow once' });
    once.addEventListener('click', () => this.answerQuestion(e, { type: 'approve', question_id: e.question_id, scope: 'once' }));
    actions.append(once);
    if (e.scopes && e.scopes.length) {
      const choice = el('select', { 'aria-label': 'Rule for this session' }, e.scopes.map((s) => el('option', { value: s, text: s })));
      const session = el('button', { type: 'button', text: e.plan ? 'Approve, go on in auto' : 'Allow for this session' });
      session.addEventListener('click', () => this.answerQuestion(e, { type: 'approve', question_id: e.question_id, scope: 'session', rule: choice.value }));
      actions.append(session);
      if (e.scopes.length > 1) actions.append(choice);
    }
    const note = el('input', { type: 'text', placeholder: 'why not (told to the model)', 'aria-label': 'Reason for denying' });
    const deny = el('button', { type: 'button', text: 'Deny' });
    deny.addEventListener('click', () => {
      const op = { type: 'deny', question_id: e.question_id };
      if (note.value.trim()) op.note = note.value.trim();
      this.answerQuestion(e, op);
    });
    actions.append(deny, note);
    node.append(actions);
    this.questions.set(e.question_id, { node, actions });
    this.endAnswer();
    this.add(node);
    // The call's later events (its start, its output) go to this card.
    if (!e.agent || !this.cards.has(e.call_id)) {
      this.cards.set(e.call_id, { node, header: node.querySelector('header'), diffShown: Boolean(e.changes && e.changes.length) });
    }
    node.scrollIntoView({ block: 'nearest' });
    if (current === this) drawChrome();
  }

  async answerQuestion(e, op) {
    const q = this.questions.get(e.question_id);
    q.actions.querySelectorAll('button, input, select').forEach((b) => { b.disabled = true; });
    try {
      await api('POST', `/sessions/${encodeURIComponent(this.info.id)}/ops`, op);
    } catch (error) {
      q.actions.querySelectorAll('button, input, select').forEach((b) => { b.disabled = false; });
      failed(error);
    }
  }

  closeQuestion(e) {
    const q = this.questions.get(e.question_id);
    if (!q) return;
    const words = { once: 'Allowed once', session: 'Allowed for this session', always: 'Allowed from now on', denied: 'Denied', withdrawn: 'Withdrawn' };
    let text = words[e.answer] || e.answer;
    if (e.rule) text += ` · rule ${e.rule}`;
    if (e.note) text += ` · ${e.note}`;
    q.actions.replaceWith(el('div', { class: 'answered', text }));
    q.node.querySelector('header .state').textContent = e.answer === 'denied' || e.answer === 'withdrawn' ? 'not allowed' : 'allowed';
    this.questions.delete(e.question_id);
    if (current === this) drawChrome();
  }
}

function prettyArgs(text) {
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
}

// A tool call in one line: the argument that says most about it.
function summarize(name, argumentsText) {
  let args;
  try { args = JSON.parse(argumentsText); } catch { return argumentsText.slice(0, 200); }
  if (!args || typeof args !== 'object') return String(args);
  for (const key of ['command', 'path', 'file_path', 'pattern', 'query', 'url', 'description', 'prompt']) {
    if (typeof args[key] === 'string') return args[key].split('\n')[0].slice(0, 200);
  }
  return JSON.stringify(args).slice(0, 200);
}

function formatMs(ms) {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function formatTokens(n) {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 100000 ? 0 : 1)}k` : String(n);
}

// ---------------------------------------------------------------- sessions

let sessions = [];
let current = null;
let stream = null;
let commands = [];

function drawChrome() {
  const title = $('title-cwd');
  const state = $('title-state');
  const status = $('status');
  if (!current) {
    title.textContent = 'No session';
    state.textContent = '';
    status.replaceChildren();
    $('stop').hidden = true;
    $('mode-label').hidden = true;
    return;
  }
  $('mode-label').hidden = false;
  if (document.activeElement !== $('mode')) $('mode').value = current.info.mode || 'ask';
  const folder = current.info.cwd.split('/').filter(Boolean).pop() || current.info.cwd;
  title.replaceChildren(el('span', { class: 'full', text: current.info.cwd }), el('span', { class: 'short', text: folder }));
  title.title = `${current.info.cwd} · ${current.info.id}`;
  const waiting = current.questions.size;
  state.textContent = waiting ? 'waiting for your answer' : current.busy ? 'working' : 'ready';
  state.className = current.busy && !waiting ? 'working' : '';
  $('stop').hidden = !current.busy;
  const u = current.usage;
  const used = u.prompt + u.completion;
  const limit = current.info.context_window;
  const parts = [['model', current.model]];
  parts.push(['context', used ? (limit ? `${formatTokens(used)} / ${formatTokens(limit)} (${Math.round((100 * used) / limit)} %)` : formatTokens(used)) : '—']);
  parts.push(['cost', current.cost ? `${current.cost.total.toFixed(4)} ${current.cost.currency}` : '—']);
  parts.push(['cache', u.hit + u.miss ? `${Math.round((100 * u.hit) / (u.hit + u.miss))} % hit` : '—']);
  status.replaceChildren(...parts.map(([k, v]) => el('span', { 'data-status': k }, `${k} `, el('b', { text: v }))));
}

function drawSessions() {
  const list = $('session-list');
  list.replaceChildren(...sessions.map((s) => {
    const name = s.cwd.split('/').filter(Boolean).pop() || s.cwd;
    const close = el('button', { type: 'button', title: 'End this session', 'aria-label': `End session ${s.id}`, text: '×' });
    close.addEventListener('click', (ev) => { ev.stopPropagation(); closeSession(s.id); });
    const item = el('div', { class: 'session-item', role: 'button', tabindex: 0, 'data-session': s.id, 'aria-current': current && current.info.id === s.id ? 'true' : 'false' },
      el('span', { class: 'what' }, el('span', { class: 'name', text: name }), el('span', { class: 'sub', text: `${s.model} · ${s.id}` })), close);
    item.addEventListener('click', () => { select(s); closeDrawer(); });
    item.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') { select(s); closeDrawer(); } });
    return item;
  }));
}

async function refreshSessions() {
  const data = await api('GET', '/sessions');
  sessions = data.sessions;
  // Another client may have switched the mode.
  const fresh = current && sessions.find((s) => s.id === current.info.id);
  if (fresh) { current.info = fresh; drawChrome(); }
  drawSessions();
  return sessions;
}

async function switchMode(mode) {
  if (!current) return;
  const view = current;
  try {
    const data = await api('POST', `/sessions/${encodeURIComponent(view.info.id)}/mode`, { mode });
    view.info.mode = data.mode;
  } catch (error) {
    failed(error);
  }
  if (current === view) drawChrome();
}

function select(info) {
  if (current && current.info.id === info.id) return;
  if (stream) stream.close();
  $('transcript').replaceChildren();
  current = new View(info);
  sessionStorage.setItem('reasonix-session', info.id);
  const view = current;
  const source = new EventSource(`${API}/sessions/${encodeURIComponent(info.id)}/events`, { withCredentials: true });
  const onEvent = (msg) => {
    if (current !== view) return;
    let event;
    try { event = JSON.parse(msg.data); } catch { return; }
    if (msg.type === 'gap') event = { type: 'gap' };
    view.handle(event);
  };
  for (const type of EVENT_TYPES) source.addEventListener(type, onEvent);
  source.addEventListener('open', () => { if (current === view) showBanner(''); });
  source.addEventListener('error', () => {
    if (current !== view) return;
    if (source.readyState === EventSource.CLOSED) {
      showBanner('This session has ended on the server.');
      refreshSessions().catch(failed);
    } else {
      showBanner('Connection lost — reconnecting…');
    }
  });
  stream = source;
  commands = [];
  api('GET', `/sessions/${encodeURIComponent(info.id)}/commands`).then((d) => { if (current === view) commands = d.commands; }).catch(() => {});
  drawSessions();
  drawChrome();
  $('input').focus();
}

async function openSession(body) {
  showBanner('Opening a session…');
  const info = await api('POST', '/sessions', body || {});
  showBanner('');
  await refreshSessions();
  select(info);
  return info;
}

async function closeSession(id) {
  try {
    await api('DELETE', `/sessions/${encodeURIComponent(id)}`);
    if (current && current.info.id === id) {
      if (stream) stream.close();
      stream = null;
      current = null;
      $('transcript').replaceChildren();
    }
    await refreshSessions();
    if (!current && sessions.length) select(sessions[0]);
    drawChrome();
  } catch (error) {
    failed(error);
  }
}

async function submit(op) {
  if (!current) return;
  await api('POST', `/sessions/${encodeURIComponent(current.info.id)}/ops`, op);
}

// ---------------------------------------------------------------- the composer

const popup = { items: [], index: 0, token: null, seq: 0 };

function autosize() {
  const input = $('input');
  input.style.height = 'auto';
  input.style.height = Math.min(input.scrollHeight + 2, window.innerHeight * 0.4) + 'px';
}

// What is being completed at the caret: `/name` at the start, or an `@path` word.
function tokenAtCaret() {
  const input = $('input');
  const before = input.value.slice(0, input.selectionStart);
  const slash = before.match(/^\/([\w:.-]*)$/);
  if (slash) return { kind: 'command', start: 0, text: slash[1] };
  const at = before.match(/(^|\s)@([^\s@]*)$/);
  if (at) return { kind: 'path', start: before.length - at[2].length - 1, text: at[2] };
  return null;
}

async function updatePopup() {
  const token = tokenAtCaret();
  const seq = ++popup.seq;
  if (!token || !current) return hidePopup();
  let items = [];
  if (token.kind === 'command') {
    const prefix = token.text.toLowerCase();
    const all = [...PAGE_COMMANDS, ...commands.filter((c) => !PAGE_COMMANDS.some((p) => p.name === c.name))];
    items = all.filter((c) => c.name.toLowerCase().startsWith(prefix))
      .sort((a, b) => (b.name.toLowerCase() === prefix) - (a.name.toLowerCase() === prefix))
      .map((c) => ({ label: '/' + c.name, hint: [c.hint, c.description].filter(Boolean).join(' — '), insert: '/' + c.name + ' ', more: false }));
  } else {
    try {
      const data = await api('GET', `/sessions/${encodeURIComponent(current.info.id)}/complete?path=${encodeURIComponent(token.text)}`);
      items = data.candidates.map((c) => ({ label: c.display, hint: c.is_dir ? 'folder' : '', insert: c.insert + (c.is_dir ? '' : ' '), more: c.is_dir }));
    } catch { items = []; }
  }
  if (seq !== popup.seq) return undefined;
  popup.items = items;
  popup.index = 0;
  popup.token = token;
  drawPopup();
  return undefined;
}

function drawPopup() {
  const list = $('popup');
  if (!popup.items.length) return hidePopup();
  list.replaceChildren(...popup.items.map((item, n) => {
    const li = el('li', { role: 'option', 'aria-selected': n === popup.index ? 'true' : 'false' }, el('span', { class: 'label', text: item.label }), el('span', { class: 'hint', text: item.hint }));
    li.addEventListener('mousedown', (ev) => { ev.preventDefault(); popup.index = n; choose(); });
    return li;
  }));
  list.hidden = false;
  list.children[popup.index]?.scrollIntoView({ block: 'nearest' });
  return undefined;
}

function hidePopup() {
  popup.items = [];
  $('popup').hidden = true;
}

function choose() {
  const item = popup.items[popup.index];
  const token = popup.token;
  if (!item || !token) return;
  const input = $('input');
  const end = input.selectionStart;
  input.value = input.value.slice(0, token.start) + item.insert + input.value.slice(end);
  const caret = token.start + item.insert.length;
  input.setSelectionRange(caret, caret);
  hidePopup();
  autosize();
  if (item.more) updatePopup();
}

async function send() {
  const input = $('input');
  const text = input.value.trim();
  if (!text || !current) return;
  const command = text.match(/^\/(\S+)\s*([\s\S]*)$/);
  const page = command && PAGE_COMMANDS.find((c) => c.name === command[1]);
  try {
    if (page) {
      const arg = command[2].trim();
      if (page.name === 'new') await openSession({ cwd: current.info.cwd });
      else if (page.name === 'compact') await submit(arg ? { type: 'compact', focus: arg } : { type: 'compact' });
      else if (page.name === 'model') {
        if (!arg) { showBanner('/model needs a model: /model provider/model'); return; }
        await submit({ type: 'set_model', model: arg });
      } else if (page.name === 'mode') {
        if (!arg) { showBanner('/mode needs a mode: ask, acceptEdits, auto or plan'); return; }
        await api('POST', `/sessions/${encodeURIComponent(current.info.id)}/mode`, { mode: arg });
        current.info.mode = arg;
        drawChrome();
      } else if (page.name === 'stop') await submit({ type: 'cancel' });
      else if (page.name === 'close') await closeSession(current.info.id);
    } else {
      await submit({ type: 'prompt', text: input.value });
    }
    input.value = '';
    autosize();
    hidePopup();
  } catch (error) {
    failed(error);
  }
}

function onKey(ev) {
  if (!$('popup').hidden && popup.items.length) {
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      const n = popup.items.length;
      popup.index = (popup.index + (ev.key === 'ArrowDown' ? 1 : n - 1)) % n;
      drawPopup();
      return;
    }
    if (ev.key === 'Tab' || (ev.key === 'Enter' && !ev.shiftKey)) {
      ev.preventDefault();
      choose();
      return;
    }
    if (ev.key === 'Escape') { ev.preventDefault(); hidePopup(); return; }
  }
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    send();
  }
}

// ---------------------------------------------------------------- drawer, login, start

function openDrawer() {
  $('app').classList.replace('drawer-closed', 'drawer-open');
  $('scrim').hidden = false;
  $('menu').setAttribute('aria-expanded', 'true');
}

function closeDrawer() {
  $('app').classList.replace('drawer-open', 'drawer-closed');
  $('scrim').hidden = true;
  $('menu').setAttribute('aria-expanded', 'false');
}

function showLogin(message) {
  $('login').hidden = false;
  $('login-error').textContent = message;
  $('login-token').focus();
}

async function start() {
  // The address `reasonix serve` printed carries the token in its fragment, which no request
  // sends: trade it for the cookie once and take it out of the address bar and history.
  const fragment = new URLSearchParams(location.hash.slice(1));
  const token = fragment.get('token');
  if (token) {
    history.replaceState(null, '', location.pathname + location.search);
    await login(token);
  }
  try {
    await refreshSessions();
  } catch (error) {
    failed(error);
    return;
  }
  $('login').hidden = true;
  const remembered = sessions.find((s) => s.id === sessionStorage.getItem('reasonix-session'));
  if (remembered || sessions.length) select(remembered || sessions[0]);
  else await openSession().catch(failed);
}

function wire() {
  const narrow = window.matchMedia('(max-width: 760px)');
  const placeholder = () => { $('input').placeholder = narrow.matches ? 'Message' : 'Message · @ files · / commands'; };
  narrow.addEventListener('change', placeholder);
  placeholder();
  $('composer').addEventListener('submit', (ev) => { ev.preventDefault(); send(); });
  $('input').addEventListener('keydown', onKey);
  $('input').addEventListener('input', () => { autosize(); updatePopup(); });
  $('input').addEventListener('click', () => updatePopup());
  $('input').addEventListener('blur', () => setTimeout(hidePopup, 150));
  $('stop').addEventListener('click', () => submit({ type: 'cancel' }).catch(failed));
  $('mode').addEventListener('change', (ev) => switchMode(ev.target.value));
  $('new-session').addEventListener('click', () => { closeDrawer(); openSession(current ? { cwd: current.info.cwd } : {}).catch(failed); });
  $('open-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const body = {};
    const cwd = $('open-cwd').value.trim();
    const resume = $('open-resume').value.trim();
    if (cwd) body.cwd = cwd;
    if (resume) body.resume = resume;
    closeDrawer();
    openSession(body).then(() => { $('open-cwd').value = ''; $('open-resume').value = ''; }).catch(failed);
  });
  $('menu').addEventListener('click', () => ($('app').classList.contains('drawer-open') ? closeDrawer() : openDrawer()));
  $('scrim').addEventListener('click', closeDrawer);
  $('login-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const ok = await login($('login-token').value.trim());
    if (!ok) { $('login-error').textContent = 'That is not the server\'s token.'; return; }
    $('login-token').value = '';
    start();
  });
  // A narrower window makes the transcript taller: whoever was reading its end stays there.
  let followEnd = true;
  $('transcript').addEventListener('scroll', () => { followEnd = Boolean(current && current.atEnd()); });
  window.addEventListener('resize', () => {
    if (followEnd) $('transcript').scrollTop = $('transcript').scrollHeight;
  });
  setInterval(() => { if (!document.hidden && $('login').hidden) refreshSessions().catch(() => {}); }, 10000);
}

wire();
start();
