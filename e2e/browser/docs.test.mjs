// The docs page (/mcp-docs) in headless Chromium, driven by playwright-core.
// Started by e2e/browser/browser_test.go, which runs the servers and passes:
//
//   DOCS_PUBLIC_URL     a server in public mode
//   DOCS_OAUTH_URL      a server in OAuth mode beside the dev issuer
//   DOCS_TOKEN          an access token the dev issuer minted for it
//   DOCS_EXAMPLES       JSON file: [{name, tool, response}] of the samples
//   DOCS_SCREENSHOT_DIR where the full-page screenshots go
//   DOCS_USER_DATA_DIR  a fresh Chromium profile directory
//   CHROMIUM            the browser (Debian's /usr/bin/chromium; none is downloaded)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set (run through e2e/browser/browser_test.go)`);
  return v;
};
const publicURL = env('DOCS_PUBLIC_URL');
const oauthURL = env('DOCS_OAUTH_URL');
const token = env('DOCS_TOKEN');
const examples = JSON.parse(readFileSync(env('DOCS_EXAMPLES'), 'utf8'));
const shots = env('DOCS_SCREENSHOT_DIR');
const profile = env('DOCS_USER_DATA_DIR');
const timeout = 15_000;
// Screenshots are the test's artefacts, not its assertions: a console grown
// to some 12,000 px after a search takes ten seconds or more to capture on a
// loaded 2-core machine, so they get a longer bound than the interactions.
const shotTimeout = 90_000;

let context;
before(async () => {
  mkdirSync(profile, { recursive: true });
  // launchPersistentContext is how playwright takes --user-data-dir.
  context = await chromium.launchPersistentContext(profile, {
    executablePath: env('CHROMIUM'),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1280, height: 900 },
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  context.setDefaultTimeout(timeout);
});
after(async () => { await context?.close(); });

// open loads the docs page of base and records what a person would see
// go wrong: console errors, uncaught exceptions, failed or foreign requests.
async function open(base) {
  const page = await context.newPage();
  const problems = [];
  const calls = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`exception: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('request', (r) => {
    if (new URL(r.url()).origin !== new URL(base).origin && !r.url().startsWith('data:')) problems.push(`foreign request: ${r.url()}`);
    if (r.method() === 'POST') calls.push({ url: r.url(), headers: r.headers(), body: r.postData() });
  });
  const res = await page.goto(`${base}/mcp-docs`);
  assert.equal(res.status(), 200);
  await page.waitForFunction(() => document.querySelector('.schema-counts')?.textContent !== '');
  return { page, problems, calls, console: page.locator('[data-console="trident"]') };
}

// send clicks Send and waits for the console to finish the call.
async function send(c) {
  await c.locator('.send').click();
  await c.page().waitForFunction((el) => el.dataset.state === 'done', await c.elementHandle());
}

async function finalFrame(c) {
  assert.equal(await c.locator('.final').getAttribute('data-matched'), 'true', await c.locator('.final').textContent());
  return JSON.parse(await c.locator('.final').textContent());
}

async function checkLayout(page, name) {
  const widths = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
    wide: [...document.querySelectorAll('main *')].filter((el) => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
      .slice(0, 5).map((el) => `${el.tagName}.${el.className}`),
  }));
  assert.ok(widths.scroll <= widths.client, `horizontal scroll at 1280 px: ${JSON.stringify(widths)}`);
  await page.screenshot({ path: join(shots, name), fullPage: true, timeout: shotTimeout });
}

describe('public mode', () => {
  let p;
  before(async () => { p = await open(publicURL); });

  test('renders with no console errors, no foreign requests and no horizontal scroll at 1280 px', async () => {
    await checkLayout(p.page, 'public-1280.png');
    await p.page.screenshot({ path: join(shots, 'public-top-1280.png'), timeout: shotTimeout });
    assert.deepEqual(p.problems, []);
  });

  test('shows the real endpoint URL and navigation that leads somewhere', async () => {
    assert.equal((await p.page.locator('.endpoint-url').first().textContent()).trim(), `${publicURL}/mcp`);
    const broken = await p.page.evaluate(() => [...document.querySelectorAll('nav a[href^="#"]')]
      .map((a) => a.getAttribute('href').slice(1)).filter((id) => !document.getElementById(id)));
    assert.deepEqual(broken, []);
    assert.ok(!(await p.page.content()).includes('localhost:8080'), 'the page still names localhost:8080');
  });

  test("each endpoint's header lists every protocol revision it serves", async () => {
    for (const id of ['trident', 'relay']) {
      const revisions = await p.page.locator(`#${id} .facts .revisions code[data-revision]`).allTextContents();
      for (const want of ['2026-07-28', '2025-11-25', '2025-06-18']) {
        assert.ok(revisions.includes(want), `#${id} header lists ${JSON.stringify(revisions)}, not ${want}`);
      }
    }
  });

  test("Relay's text gives the option lifetime in words", async () => {
    const text = await p.page.locator('#relay > p').first().textContent();
    assert.match(text, /valid for 5 minutes at most/);
    assert.doesNotMatch(text, /\dm\ds/, 'a Go duration (5m0s) in the text');
  });

  test('the sidebar breaks a tool name only between its words', async () => {
    await p.page.screenshot({ path: join(shots, 'public-sidebar-1280.png'), clip: { x: 0, y: 0, width: 260, height: 900 }, timeout: shotTimeout });
    // Where a name wraps, the character before the break must be an
    // underscore: no line of the sidebar starts inside a word.
    const broken = await p.page.evaluate(() => [...document.querySelectorAll('.toc li code')].flatMap((code) => {
      const chars = [];
      const walk = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        for (let i = 0; i < n.data.length; i++) {
          const r = document.createRange();
          r.setStart(n, i); r.setEnd(n, i + 1);
          chars.push({ c: n.data[i], top: Math.round(r.getBoundingClientRect().top) });
        }
      }
      const bad = [];
      for (let i = 1; i < chars.length; i++) {
        if (chars[i].top > chars[i - 1].top && chars[i - 1].c !== '_') bad.push(code.textContent + ' breaks after ' + chars.slice(0, i).map((x) => x.c).join(''));
      }
      return bad;
    }));
    assert.deepEqual(broken, []);
  });

  test('every snippet has a copy button that copies it', async () => {
    const bare = await p.page.evaluate(() => [...document.querySelectorAll('pre')]
      .filter((pre) => !pre.closest('.log') && !pre.closest('.auth-challenge') && !pre.parentElement.querySelector('button.copy')).length);
    assert.equal(bare, 0);
    for (const [id, name, path] of [['trident', 'trident-taxis', '/mcp'], ['relay', 'relay-rides', '/mcp/rides']]) {
      const vscode = p.page.locator(`#${id} pre[data-client="vscode"]`);
      await vscode.locator('xpath=..').locator('button.copy').click();
      await p.page.waitForFunction((sel) => document.querySelector(sel).textContent === 'Copied', `#${id} pre[data-client="vscode"] + button.copy`);
      const copied = JSON.parse(await p.page.evaluate(() => navigator.clipboard.readText()));
      assert.deepEqual(copied, { servers: { [name]: { type: 'http', url: `${publicURL}${path}` } } });
    }
  });

  test('picking a tool shows its schema with the required/optional counts', async () => {
    const c = p.console;
    await c.locator('.tool').selectOption('estimate_fare');
    assert.equal(await c.locator('.schema-counts').textContent(), '2 required, 4 optional');
    assert.deepEqual(await c.locator('.schema-fields li').evaluateAll((els) => els.map((e) => e.dataset.field)),
      ['pickup', 'dropoff', 'vehicleType', 'departAt', 'meetAndGreet', 'alternativeVehicleTypes']);
    await c.locator('.tool').selectOption('start_booking');
    assert.equal(await c.locator('.schema-counts').textContent(), '3 required, 3 optional');
    await c.locator('.tool').selectOption('get_service_info');
    assert.equal(await c.locator('.schema-counts').textContent(), 'no parameters');
    // A tool's own "Try it" button picks it in the console, schema and all.
    await p.page.locator('button.try[data-tool="start_booking"]').click();
    assert.equal(await c.locator('.tool').inputValue(), 'start_booking');
    assert.equal(JSON.parse(await c.locator('.schema-json').textContent()).required.join(), 'pickup,dropoff,vehicleType');
    assert.equal(JSON.parse(await c.locator('.args').inputValue()).passengers, 6, 'the success sample is loaded');
  });

  for (const ex of examples) {
    test(`${ex.name}: the sample's arguments give the sample's response`, async () => {
      const c = p.console;
      await c.locator('.tool').selectOption(ex.tool);
      await c.locator('.example').selectOption({ label: ex.name });
      assert.equal(await c.locator('.args-status').textContent(), 'matches schema');
      await c.locator('.stream').setChecked(false);
      await send(c);
      assert.match(await c.locator('.http-status').textContent(), /^HTTP 200 .*application\/json/);
      const final = await finalFrame(c);
      assert.deepEqual({ ...final, id: undefined }, { ...JSON.parse(JSON.stringify(ex.response)), id: undefined });
      assert.equal(await c.locator('.log li').count(), 1, 'a JSON reply is one entry of the log');
    });
  }

  // Relay's replies carry fresh ids, signatures and expiry times, so its
  // console is checked by the status fields, not byte for byte.
  for (const [sample, status] of [['search_rides.success', 'ok'], ['search_rides.handoff_available', 'handoff_available']]) {
    test(`Relay's console: ${sample} answers ${status}`, async () => {
      const c = p.page.locator('[data-console="relay"]');
      await c.locator('.tool').selectOption('search_rides');
      await c.locator('.example').selectOption({ label: sample });
      assert.equal(await c.locator('.args-status').textContent(), 'matches schema');
      await c.locator('.stream').setChecked(false);
      await send(c);
      assert.match(await c.locator('.http-status').textContent(), /^HTTP 200 .*application\/json/);
      const final = await finalFrame(c);
      assert.equal(final.result.isError, undefined, JSON.stringify(final));
      const out = final.result.structuredContent;
      assert.equal(out.status, status, JSON.stringify(out));
      assert.deepEqual(JSON.parse(final.result.content[0].text), out);
      assert.ok(out.browser_handoffs.length > 0 && out.relay_context.session_id, JSON.stringify(out));
      if (status === 'ok') assert.ok(out.options.length > 0 && out.options.every((o) => o.verification.signature), JSON.stringify(out.options));
      assert.equal(p.calls.at(-1).url, `${publicURL}/mcp/rides`);
      await c.screenshot({ path: join(shots, `relay-${status}-console.png`), timeout: shotTimeout });
    });
  }

  test("Relay's old page leads to its section of the shared page", async () => {
    const page = await context.newPage();
    await page.goto(`${publicURL}/mcp-docs/rides`);
    assert.equal(new URL(page.url()).pathname + new URL(page.url()).hash, '/mcp-docs#relay');
    assert.equal(await page.locator('#relay [data-console="relay"]').count(), 1);
    await page.close();
  });

  test('a streamed start_booking shows each progress frame in order, then the final response', async () => {
    const c = p.console;
    await c.locator('.tool').selectOption('start_booking');
    await c.locator('.example').selectOption({ label: 'start_booking.success' });
    await c.locator('.stream').setChecked(true);
    assert.match(await c.locator('.request').textContent(), /"progressToken"/);
    await send(c);
    assert.match(await c.locator('.http-status').textContent(), /^HTTP 200 .*text\/event-stream/);
    const entries = await c.locator('.log li').evaluateAll((els) => els.map((li) => ({
      kind: li.dataset.kind, meta: li.querySelector('.meta').textContent, frame: JSON.parse(li.querySelector('pre').textContent),
    })));
    const progress = entries.filter((e) => e.kind === 'progress');
    assert.ok(progress.length >= 2, `progress frames: ${JSON.stringify(entries)}`);
    assert.deepEqual(entries.map((e) => e.kind), [...progress.map(() => 'progress'), 'response'], 'progress frames, then the response');
    const values = progress.map((e) => e.frame.params.progress);
    assert.deepEqual(values, [...values].sort((a, b) => a - b), 'progress increases');
    assert.ok(progress.every((e) => e.frame.params.progressToken === progress[0].frame.params.progressToken));
    const ms = entries.map((e) => Number(/^\+(\d+) ms/.exec(e.meta)[1]));
    assert.deepEqual(ms, [...ms].sort((a, b) => a - b), 'arrival times in order');
    const final = await finalFrame(c);
    const sample = examples.find((e) => e.name === 'start_booking.success');
    assert.deepEqual(final.result, sample.response.result);
    await c.locator('.stream').setChecked(false);
  });

  test('invalid JSON is flagged and cannot be sent', async () => {
    const c = p.console;
    await c.locator('.tool').selectOption('estimate_fare');
    const before = p.calls.length;
    await c.locator('.args').fill('{"pickup": "Helensburgh", ');
    assert.equal(await c.locator('.args-status').textContent(), 'invalid JSON');
    assert.equal(await c.locator('.args').getAttribute('aria-invalid'), 'true');
    assert.ok(await c.locator('.send').isDisabled());
    await c.locator('.send').dispatchEvent('click');
    assert.equal(p.calls.length, before, 'nothing was sent');
  });

  test('arguments the schema refuses are flagged, field by field, and cannot be sent', async () => {
    const c = p.console;
    await c.locator('.tool').selectOption('estimate_fare');
    const before = p.calls.length;
    await c.locator('.args').fill(JSON.stringify({ pickup: 'ab', vehicleType: 'rickshaw' }));
    assert.equal(await c.locator('.args-status').textContent(), 'does not match the schema');
    const errors = await c.locator('.args-errors li').allTextContents();
    for (const want of [/^pickup: String is too short/, /^vehicleType: /, /^arguments: .*"dropoff"/]) {
      assert.ok(errors.some((e) => want.test(e)), `${want} in ${JSON.stringify(errors)}`);
    }
    assert.ok(await c.locator('.send').isDisabled());
    await c.locator('.tool').selectOption('start_booking');
    await c.locator('.args').fill(JSON.stringify({ pickup: 'Helensburgh', dropoff: 'Oban', vehicleType: 'mpv', passengers: 9, departAt: 'tomorrow' }));
    const more = await c.locator('.args-errors li').allTextContents();
    assert.ok(more.some((e) => e.startsWith('passengers: ')) && more.some((e) => e.startsWith('departAt: ')), JSON.stringify(more));
    assert.ok(await c.locator('.send').isDisabled());
    assert.equal(p.calls.length, before, 'nothing was sent');
    await c.locator('.example').selectOption({ index: 0 });
    assert.ok(!(await c.locator('.send').isDisabled()), 'an example is sendable again');
  });

  test('no console errors after all of it', () => { assert.deepEqual(p.problems, []); });
});

describe('OAuth mode', () => {
  let p;
  before(async () => { p = await open(oauthURL); });

  test('renders with no console errors and no horizontal scroll at 1280 px, and says the mode', async () => {
    await checkLayout(p.page, 'oauth-1280.png');
    assert.deepEqual(p.problems, []);
    assert.match(await p.page.locator('.mode').first().textContent(), /OAuth/);
    assert.equal(await p.console.locator('.token').count(), 1);
  });

  test('without a token the console shows the 401 and its resource_metadata', async () => {
    const c = p.console;
    await c.locator('.tool').selectOption('get_service_info');
    await c.locator('.token').fill('');
    await send(c);
    assert.match(await c.locator('.http-status').textContent(), /^HTTP 401/);
    const challenge = await c.locator('.www-authenticate').textContent();
    const metadataURL = `${oauthURL}/.well-known/oauth-protected-resource`;
    assert.ok(challenge.includes(`resource_metadata="${metadataURL}"`), challenge);
    assert.equal(await c.locator('.resource-metadata').getAttribute('href'), metadataURL);
    await c.locator('.metadata-document').waitFor();
    const doc = JSON.parse(await c.locator('.metadata-document').textContent());
    assert.equal(doc.resource, `${oauthURL}/mcp`);
    assert.ok(doc.authorization_servers.length === 1, JSON.stringify(doc));
    const body = JSON.parse(await c.locator('.log li pre').first().textContent());
    assert.equal(body.error.code, -32001);
    assert.equal(p.calls.at(-1).headers.authorization, undefined);
    await c.screenshot({ path: join(shots, 'oauth-401-console.png'), timeout: shotTimeout });
    // Chromium reports the 401 itself on the console; nothing else may appear.
    p.problems = p.problems.filter((m) => !/status of 401/.test(m));
  });

  test('a pasted token is sent and the call succeeds', async () => {
    const c = p.console;
    await c.locator('.token').fill(token);
    for (const ex of examples.filter((e) => e.name.endsWith('.success'))) {
      await c.locator('.tool').selectOption(ex.tool);
      await c.locator('.example').selectOption({ label: ex.name });
      await send(c);
      assert.match(await c.locator('.http-status').textContent(), /^HTTP 200/);
      assert.equal(p.calls.at(-1).headers.authorization, `Bearer ${token}`);
      assert.deepEqual((await finalFrame(c)).result, ex.response.result);
    }
    await c.screenshot({ path: join(shots, 'oauth-token-console.png'), timeout: shotTimeout });
    assert.deepEqual(p.problems, []);
  });
});

test('the vendored JSON Schema validator is the pinned npm package, byte for byte', () => {
  const vendored = 'server/docspage/assets/json-schema';
  const pinned = 'node_modules/@cfworker/json-schema/dist/esm';
  const js = readdirSync(pinned).filter((f) => f.endsWith('.js')).sort();
  assert.deepEqual(readdirSync(vendored).filter((f) => f.endsWith('.js')).sort(), js);
  for (const f of js) assert.ok(readFileSync(join(vendored, f)).equals(readFileSync(join(pinned, f))), f);
});
