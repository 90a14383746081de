// The docs page's script: copy buttons on every snippet, and one Try-it
// console per MCP endpoint. A console validates the arguments against the
// tool's input schema (the one tools/list serves) before it lets you send,
// sends a real JSON-RPC tools/call to the endpoint on this origin, and
// shows every reply frame as it arrives: each SSE event of a streamed
// reply, or the one application/json body.
import { Validator } from './json-schema/index.js';

const data = JSON.parse(document.getElementById('docs-data').textContent);


async function copy(button, text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard API (an insecure origin): select the text for Ctrl-C.
    const range = document.createRange();
    range.selectNodeContents(button.parentElement.querySelector('pre'));
    getSelection().removeAllRanges();
    getSelection().addRange(range);
    button.textContent = 'Selected';
    return;
  }
  button.textContent = 'Copied';
  button.classList.add('copied');
  setTimeout(() => { button.textContent = 'Copy'; button.classList.remove('copied'); }, 1500);
}

// describe words one property of an input schema for the schema list.
function describe(prop) {
  const parts = [];
  if (prop.type) parts.push(Array.isArray(prop.type) ? prop.type.join(' | ') : prop.type);
  if (prop.format) parts.push(prop.format);
  const out = [parts.join(' · ')];
  if (prop.enum) out.push(prop.enum.map((v) => JSON.stringify(v)).join(' | '));
  if (prop.minLength !== undefined || prop.maxLength !== undefined) {
    out.push(`length ${prop.minLength ?? 0}–${prop.maxLength ?? '∞'}`);
  }
  if (prop.minimum !== undefined || prop.maximum !== undefined) {
    out.push(`range ${prop.minimum ?? '−∞'}–${prop.maximum ?? '∞'}`);
  }
  return out.filter(Boolean).join(' · ');
}

// fieldOf turns a validator location ("#/pickup") into the field name the
// server's -32602 message would use ("pickup").
function fieldOf(location) {
  const path = location.replace(/^#\/?/, '');
  return path === '' ? 'arguments' : path.split('/').map(decodeURIComponent).join('.');
}

// parseSSE feeds complete events from text to onEvent and returns the
// unfinished rest. Events end at a blank line; data lines are joined with
// "\n" (the SSE specification's dispatch rule); ':' lines are comments.
function parseSSE(text, onEvent) {
  const normalized = text.replace(/\r\n?/g, '\n');
  let rest = normalized;
  let end;
  while ((end = rest.indexOf('\n\n')) !== -1) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const ev = { event: 'message', id: null, data: [] };
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') ev.data.push(value);
      else if (field === 'event') ev.event = value;
      else if (field === 'id') ev.id = value;
    }
    if (ev.data.length) onEvent({ ...ev, data: ev.data.join('\n') });
  }
  return rest;
}

class Console {
  constructor(root, endpoint) {
    this.root = root;
    this.endpoint = endpoint;
    this.nextId = 0;
    this.validators = new Map();
    const $ = (sel) => root.querySelector(sel);
    this.el = {
      tool: $('.tool'), example: $('.example'), token: $('.token'), stream: $('.stream'),
      counts: $('.schema-counts'), fields: $('.schema-fields'), schema: $('.schema-json'), args: $('.args'),
      status: $('.args-status'), errors: $('.args-errors'), send: $('.send'), request: $('.request'),
      http: $('.http-status'), challenge: $('.auth-challenge'), log: $('.log'), final: $('.final'),
    };
    this.el.tool.addEventListener('change', () => this.selectTool());
    this.el.example.addEventListener('change', () => this.loadExample());
    this.el.args.addEventListener('input', () => this.check());
    this.el.stream.addEventListener('change', () => this.check());
    this.el.send.addEventListener('click', () => this.send());
    this.selectTool();
  }

  get tool() {
    return this.endpoint.tools.find((t) => t.name === this.el.tool.value);
  }

  validator(tool) {
    if (!this.validators.has(tool.name)) {
      this.validators.set(tool.name, new Validator(tool.inputSchema, '2020-12', false));
    }
    return this.validators.get(tool.name);
  }

  selectTool() {
    const tool = this.tool;
    const schema = tool.inputSchema;
    const props = Object.entries(schema.properties ?? {});
    const required = new Set(schema.required ?? []);
    const n = props.filter(([name]) => required.has(name)).length;
    this.el.counts.textContent = props.length ? `${n} required, ${props.length - n} optional` : 'no parameters';
    this.el.fields.replaceChildren(...props.map(([name, prop]) => {
      const li = document.createElement('li');
      li.dataset.field = name;
      const head = document.createElement('div');
      const code = document.createElement('code');
      code.textContent = name;
      const kind = document.createElement('span');
      kind.className = required.has(name) ? 'req' : 'opt';
      kind.textContent = required.has(name) ? ' required' : ' optional';
      head.append(code, ' ', describe(prop), kind);
      li.append(head);
      if (prop.description) {
        const d = document.createElement('div');
        d.textContent = prop.description;
        li.append(d);
      }
      return li;
    }));
    this.el.schema.textContent = JSON.stringify(schema, null, 2);
    this.el.example.replaceChildren(...tool.examples.map((ex, i) => new Option(ex.name, String(i))));
    this.el.example.disabled = tool.examples.length === 0;
    this.loadExample();
  }

  loadExample() {
    const ex = this.tool.examples[Number(this.el.example.value)];
    this.el.args.value = JSON.stringify(ex ? ex.arguments : {}, null, 2);
    this.check();
  }

  // check parses and validates the arguments, shows the verdict, and
  // returns the request body to send, or null when there is none.
  check() {
    const { args, request } = this.el;
    let value;
    try {
      value = JSON.parse(args.value);
    } catch (e) {
      return this.verdict(false, 'invalid JSON', [e.message]);
    }
    const result = this.validator(this.tool).validate(value);
    if (!result.valid) {
      // The deepest error of each location says why; its parents only
      // repeat that a subschema failed.
      const seen = new Set();
      const lines = [];
      for (const err of result.errors) {
        if (seen.has(err.instanceLocation)) continue;
        seen.add(err.instanceLocation);
        lines.push(`${fieldOf(err.instanceLocation)}: ${err.error}`);
      }
      return this.verdict(false, 'does not match the schema', lines);
    }
    const params = { name: this.tool.name, arguments: value };
    const body = { jsonrpc: '2.0', id: this.nextId + 1, method: 'tools/call', params };
    if (this.el.stream.checked) params._meta = { progressToken: `docs-${this.nextId + 1}` };
    request.textContent = JSON.stringify(body, null, 2);
    this.verdict(true, 'matches schema', []);
    return body;
  }

  verdict(ok, word, lines) {
    const { args, status, errors, send, request } = this.el;
    status.textContent = word;
    status.className = `args-status ${ok ? 'ok' : 'bad'}`;
    args.classList.toggle('invalid', !ok);
    args.setAttribute('aria-invalid', String(!ok));
    errors.replaceChildren(...lines.map((l) => Object.assign(document.createElement('li'), { textContent: l })));
    send.disabled = !ok || this.busy === true;
    if (!ok) request.textContent = '';
    return null;
  }

  headers() {
    const h = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    if (this.endpoint.protocolVersion) h['MCP-Protocol-Version'] = this.endpoint.protocolVersion;
    const token = this.el.token ? this.el.token.value.trim().replace(/^bearer\s+/i, '') : '';
    if (token) h.Authorization = `Bearer ${token}`;
    return h;
  }

  async send() {
    const body = this.check();
    if (!body) return;
    this.nextId = body.id;
    this.busy = true;
    this.el.send.disabled = true;
    this.el.log.replaceChildren();
    this.el.final.textContent = '';
    this.el.final.dataset.matched = 'false';
    this.el.challenge.hidden = true;
    this.el.challenge.replaceChildren();
    this.el.http.className = 'http-status';
    this.el.http.textContent = 'Sending…';
    this.root.dataset.state = 'sending';
    this.started = performance.now();
    let final = null;
    let last = null;
    const onFrame = (frame, meta) => {
      last = frame;
      this.log(frame, meta);
      if (frame && typeof frame === 'object' && frame.id === body.id && !frame.method) final = frame;
    };
    try {
      const res = await fetch(this.endpoint.path, {
        method: 'POST', headers: this.headers(), body: JSON.stringify(body), cache: 'no-store',
      });
      const type = res.headers.get('Content-Type') ?? '';
      this.el.http.textContent = `HTTP ${res.status} ${res.statusText} · ${type || 'no Content-Type'}`;
      this.el.http.classList.toggle('bad', !res.ok);
      this.root.dataset.status = String(res.status);
      if (res.status === 401) await this.challenge(res.headers.get('WWW-Authenticate'));
      if (type.includes('text/event-stream') && res.body) {
        await this.readStream(res.body, onFrame);
      } else {
        const text = await res.text();
        let frame;
        try { frame = JSON.parse(text); } catch { frame = text; }
        onFrame(frame, type.split(';')[0] || 'body');
      }
    } catch (e) {
      this.el.http.textContent = `Network error: ${e.message}`;
      this.el.http.classList.add('bad');
    } finally {
      this.busy = false;
      this.root.dataset.state = 'done';
      this.check();
    }
    if (final) {
      this.el.final.textContent = JSON.stringify(final, null, 2);
      this.el.final.dataset.matched = 'true';
    } else if (last !== null) {
      this.el.final.textContent = `(no frame with id ${body.id}; the reply was)\n` +
        (typeof last === 'string' ? last : JSON.stringify(last, null, 2));
    } else {
      this.el.final.textContent = '(no reply)';
    }
  }

  async readStream(stream, onFrame) {
    const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    const onEvent = (ev) => {
      let frame;
      try { frame = JSON.parse(ev.data); } catch { frame = ev.data; }
      onFrame(frame, `event: ${ev.event}${ev.id !== null ? ` · id: ${ev.id}` : ''}`);
    };
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer = parseSSE(buffer + value, onEvent);
    }
    parseSSE(buffer + '\n\n', onEvent);
  }

  log(frame, meta) {
    const li = document.createElement('li');
    const head = document.createElement('div');
    head.className = 'meta';
    const ms = Math.round(performance.now() - this.started);
    let summary = '';
    if (frame && frame.method === 'notifications/progress') {
      li.dataset.kind = 'progress';
      const p = frame.params ?? {};
      summary = ` · progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ''}${p.message ? ` — ${p.message}` : ''}`;
    } else if (frame && typeof frame === 'object' && 'id' in frame) {
      li.dataset.kind = 'response';
      summary = frame.error ? ` · error ${frame.error.code}` : ' · result';
    } else {
      li.dataset.kind = 'other';
    }
    head.textContent = `+${ms} ms · ${meta}${summary}`;
    const pre = document.createElement('pre');
    pre.textContent = typeof frame === 'string' ? frame : JSON.stringify(frame, null, 2);
    li.append(head, pre);
    this.el.log.append(li);
  }

  // challenge shows a 401's WWW-Authenticate and, when it names
  // resource_metadata on this origin, the document it points at.
  async challenge(header) {
    const box = this.el.challenge;
    box.hidden = false;
    const p = document.createElement('p');
    p.append('401: the call needs a valid bearer token. ');
    const code = document.createElement('code');
    code.className = 'www-authenticate';
    code.textContent = `WWW-Authenticate: ${header ?? '(none)'}`;
    p.append(code);
    box.append(p);
    const m = /resource_metadata="([^"]+)"/.exec(header ?? '');
    if (!m) return;
    const url = new URL(m[1], location.href);
    const q = document.createElement('p');
    const a = Object.assign(document.createElement('a'), { href: url.href, textContent: url.href, className: 'resource-metadata' });
    q.append('resource_metadata: ', a);
    box.append(q);
    if (url.origin !== location.origin) return;
    try {
      const doc = await (await fetch(url, { cache: 'no-store' })).json();
      const pre = Object.assign(document.createElement('pre'), { className: 'metadata-document', textContent: JSON.stringify(doc, null, 2) });
      box.append(pre);
    } catch (e) {
      box.append(Object.assign(document.createElement('p'), { textContent: `Could not read it: ${e.message}` }));
    }
  }
}

// Wire the page up once everything above is defined (classes are not hoisted).
for (const button of document.querySelectorAll('.snippet > button.copy')) {
  button.addEventListener('click', () => copy(button, button.parentElement.querySelector('pre').textContent));
}
const consoles = new Map();
for (const el of document.querySelectorAll('[data-console]')) {
  const ep = data.endpoints[el.dataset.console];
  if (ep) consoles.set(el.dataset.console, new Console(el, ep));
}
// Each tool's "Try it" button picks the tool in its endpoint's console.
for (const button of document.querySelectorAll('button.try')) {
  button.addEventListener('click', () => {
    const c = consoles.get(button.dataset.endpoint);
    if (!c) return;
    c.el.tool.value = button.dataset.tool;
    c.selectTool();
    c.root.scrollIntoView({ block: 'start' });
    c.el.args.focus({ preventScroll: true });
  });
}
