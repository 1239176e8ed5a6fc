// The web UI of `reasonix serve` in a real headless Chromium (driven by tests/e2e/webui.rs,
// which starts the mock LLM and the server and checks the workspace afterwards).
//
// Environment: REASONIX_BROWSER_MODULES (node_modules holding playwright-core),
// REASONIX_CHROMIUM (the browser), WEBUI_URL (the address `reasonix serve` printed, token in
// its fragment), WEBUI_EVIL (a page on another port of this machine), WEBUI_OUT (where the
// screenshots go). Prints one JSON line of what it saw; any failed expectation exits 1 naming
// the step.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(path.join(process.env.REASONIX_BROWSER_MODULES, 'x.js'));
const { chromium } = require('playwright-core');

const url = process.env.WEBUI_URL;
const out = process.env.WEBUI_OUT;
const WAIT = 30000;
const seen = {};
let step = 'start';

function expect(condition, what) {
  if (!condition) throw new Error(`${step}: ${what}`);
}

const browser = await chromium.launch({
  executablePath: process.env.REASONIX_CHROMIUM,
  args: [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
});
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('dialog', (d) => { pageErrors.push(`dialog: ${d.message()}`); d.dismiss(); });

  step = 'open the page with the printed address';
  await page.goto(url);
  await page.waitForSelector('#transcript .note', { timeout: WAIT });
  seen.hash_after_login = await page.evaluate(() => location.hash);
  expect(seen.hash_after_login === '', `the token stays in the address bar: ${seen.hash_after_login}`);
  expect(await page.isHidden('#login'), 'the sign-in form is shown although the address carried the token');
  seen.title = await page.textContent('#title-cwd');

  step = '@ completes a path from the workspace';
  const input = page.locator('#input');
  await input.click();
  await input.pressSequentially('look at @no');
  await page.waitForSelector('#popup li', { timeout: WAIT });
  seen.mention = await page.textContent('#popup');
  expect(seen.mention.includes('notes.txt'), `no notes.txt in ${seen.mention}`);
  await page.keyboard.press('Tab');
  seen.after_mention = await input.inputValue();
  expect(seen.after_mention === 'look at @notes.txt ', `completed to ${JSON.stringify(seen.after_mention)}`);
  await input.fill('');

  step = '/ lists the page commands and the workspace commands';
  await input.pressSequentially('/');
  await page.waitForSelector('#popup li', { timeout: WAIT });
  seen.commands = await page.$$eval('#popup li .label', (items) => items.map((i) => i.textContent));
  expect(seen.commands.includes('/compact') && seen.commands.includes('/greet'), `commands: ${seen.commands}`);
  await input.pressSequentially('gr');
  await page.keyboard.press('Tab');
  expect((await input.inputValue()) === '/greet ', `chose ${await input.inputValue()}`);
  await input.fill('');

  step = 'a prompt streams its answer';
  await input.pressSequentially('Tell me about the notes');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.msg.user', { timeout: WAIT });
  const lengths = new Set();
  const deadline = Date.now() + WAIT;
  for (;;) {
    const text = await page.evaluate(() => document.querySelector('.msg.assistant')?.textContent ?? '');
    if (text) lengths.add(text.length);
    if (text.includes('END-OF-ANSWER')) break;
    expect(Date.now() < deadline, `the answer did not finish: ${text}`);
    await page.waitForTimeout(25);
  }
  seen.partial_lengths = lengths.size;
  expect(lengths.size >= 3, `the answer appeared in ${lengths.size} steps, not streamed`);

  step = 'the answer is Markdown, and markup in it stays text';
  seen.strong = await page.textContent('.msg.assistant strong');
  expect(seen.strong === 'bold claim', `strong: ${seen.strong}`);
  seen.code = await page.textContent('.msg.assistant pre code');
  expect(seen.code.includes('fn main()'), `code: ${seen.code}`);
  seen.images = await page.$$eval('#transcript img', (imgs) => imgs.length);
  expect(seen.images === 0, 'markup from the model became an element');
  seen.literal = await page.evaluate(() => document.querySelector('.msg.assistant').textContent.includes('<img src=x onerror=alert(1)>'));
  expect(seen.literal, 'the markup is not shown as text');
  const link = await page.getAttribute('.msg.assistant a', 'href');
  expect(link === 'https://example.com/docs', `link: ${link}`);
  seen.js_links = await page.$$eval('.msg.assistant a', (as) => as.filter((a) => !/^https?:/.test(a.href)).length);
  expect(seen.js_links === 0, 'a javascript: link became clickable');
  await page.waitForFunction(() => document.getElementById('title-state').textContent === 'ready', null, { timeout: WAIT });

  step = 'the status line';
  seen.status = await page.textContent('#status');
  expect(seen.status.includes('mock/mock-model'), `status: ${seen.status}`);
  expect(/context \S+ \/ 131k \(\d+ %\)/.test(seen.status), `context: ${seen.status}`);
  expect(/cost \d+\.\d{4} USD/.test(seen.status), `cost: ${seen.status}`);
  expect(/cache \d+ % hit/.test(seen.status), `cache: ${seen.status}`);

  step = 'a write asks, with its diff';
  await input.pressSequentially('update the notes');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.question .actions button', { timeout: WAIT });
  seen.added = await page.$$eval('.question .diff tr.add td:last-child', (tds) => tds.map((t) => t.textContent));
  seen.removed = await page.$$eval('.question .diff tr.del td:last-child', (tds) => tds.map((t) => t.textContent));
  expect(JSON.stringify(seen.added) === JSON.stringify(['BETA', 'delta']), `added: ${seen.added}`);
  expect(JSON.stringify(seen.removed) === JSON.stringify(['beta']), `removed: ${seen.removed}`);
  expect((await page.textContent('#title-state')) === 'waiting for your answer', 'the title does not say it waits');
  await page.screenshot({ path: path.join(out, 'webui-1280x800.png') });

  step = 'at phone width';
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(300);
  seen.phone_overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(seen.phone_overflow <= 0, `the page is ${seen.phone_overflow}px wider than the phone`);
  expect(await page.isVisible('#menu'), 'no menu button at phone width');
  const sidebar = await page.locator('#sidebar').boundingBox();
  expect(sidebar.x + sidebar.width <= 0, 'the session list covers the transcript at phone width');
  expect(await page.isVisible('.question .actions button.primary'), 'the approval button is out of reach');
  await page.screenshot({ path: path.join(out, 'webui-390x844.png') });
  await page.click('#menu');
  await page.waitForTimeout(300);
  expect(await page.isVisible('.session-item'), 'the drawer does not show the sessions');
  await page.screenshot({ path: path.join(out, 'webui-390x844-sessions.png') });
  await page.click('#scrim', { position: { x: 370, y: 400 } });
  await page.waitForTimeout(300);

  step = 'approve the write';
  await page.click('.question .actions button.primary');
  await page.waitForSelector('.question .answered', { timeout: WAIT });
  seen.answered = await page.textContent('.question .answered');
  expect(seen.answered.startsWith('Allowed once'), `answered: ${seen.answered}`);
  await page.waitForSelector('.card[data-state="done"]', { timeout: WAIT });
  await page.waitForFunction(() => document.getElementById('transcript').textContent.includes('Written.'), null, { timeout: WAIT });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.screenshot({ path: path.join(out, 'webui-1280x800-done.png') });

  step = 'in auto mode a write runs without asking';
  await page.selectOption('#mode', 'auto');
  await page.waitForFunction(() => document.getElementById('transcript').textContent.includes('permission mode: auto'), null, { timeout: WAIT });
  await input.pressSequentially('add a line');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.getElementById('transcript').textContent.includes('Added.'), null, { timeout: WAIT });
  seen.questions_after_auto = await page.$$eval('.question', (qs) => qs.length);
  expect(seen.questions_after_auto === 1, `auto mode still asked: ${seen.questions_after_auto} questions`);

  step = 'a reload draws the same transcript from the kept events, signed in by the cookie';
  const before = await page.textContent('#transcript');
  await page.reload();
  await page.waitForFunction(() => document.getElementById('transcript').textContent.includes('Written.'), null, { timeout: WAIT });
  const after = await page.textContent('#transcript');
  expect(after === before, 'the reloaded transcript differs');
  expect((await page.inputValue('#mode')) === 'auto', 'the mode is not shown after a reload');
  expect(await page.isHidden('#login'), 'the reload asks to sign in again');

  step = 'a page on another port of this machine cannot use the cookie';
  const sid = await page.evaluate(() => sessionStorage.getItem('reasonix-session'));
  expect(sid, 'the page does not remember its session');
  const evil = await context.newPage();
  await evil.goto(`${process.env.WEBUI_EVIL}?sid=${encodeURIComponent(sid)}`);
  await evil.waitForFunction(() => window.done === true, null, { timeout: WAIT });
  seen.evil = await evil.evaluate(() => window.results);
  await evil.close();

  step = 'a browser without the cookie gets the sign-in form';
  const stranger = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const second = await stranger.newPage();
  await second.goto(url.replace(/#.*$/, ''));
  await second.waitForSelector('#login:not([hidden])', { timeout: WAIT });
  await second.fill('#login-token', 'not-the-token-at-all');
  await second.click('#login-form button');
  await second.waitForFunction(() => document.getElementById('login-error').textContent.length > 0, null, { timeout: WAIT });
  seen.wrong_token = await second.textContent('#login-error');
  await second.fill('#login-token', new URL(url).hash.replace('#token=', ''));
  await second.click('#login-form button');
  await second.waitForSelector('#login', { state: 'hidden', timeout: WAIT });
  await second.waitForFunction(() => document.getElementById('transcript').textContent.includes('Written.'), null, { timeout: WAIT });
  await stranger.close();

  step = 'any text through the Markdown renderer makes only plain elements, and every diff adds up';
  seen.fuzz = await page.evaluate(() => {
    // Deterministic pseudo-random text from pieces that matter to Markdown and to HTML.
    let seed = 20261205;
    const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
    const pieces = ['`', '```', '*', '**', '_', '~~', '[', ']', '(', ')', '<', '>', '"', "'", '&', '#', '# ', '- ', '1. ', '> ',
      '|', '---', '\n', '\n\n', '    ', 'javascript:alert(1)', 'https://example.com/a', 'data:text/html,x', '<script>x</script>',
      '<img src=x onerror=y>', 'onclick=', '&lt;', '中文', '🙂', 'word', ' ', '\\', '[x] ', '![i](https://e/x.png)'];
    const allowedTags = new Set(['P', 'BR', 'STRONG', 'EM', 'DEL', 'CODE', 'PRE', 'A', 'UL', 'OL', 'LI', 'BLOCKQUOTE', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD', 'INPUT']);
    const allowedAttrs = new Set(['href', 'target', 'rel', 'data-lang', 'start', 'type', 'disabled', 'checked']);
    let elements = 0;
    for (let round = 0; round < 3000; round++) {
      let text = '';
      const count = 1 + rand(40);
      for (let i = 0; i < count; i++) text += pieces[rand(pieces.length)];
      const box = document.createElement('div');
      box.append(renderMarkdown(text));
      for (const node of box.querySelectorAll('*')) {
        elements++;
        if (!allowedTags.has(node.tagName)) return `<${node.tagName}> from ${JSON.stringify(text)}`;
        for (const attr of node.attributes) {
          if (!allowedAttrs.has(attr.name)) return `${attr.name}= from ${JSON.stringify(text)}`;
        }
        if (node.tagName === 'A' && !/^https?:/.test(node.getAttribute('href'))) return `href ${node.getAttribute('href')} from ${JSON.stringify(text)}`;
        if (node.tagName === 'INPUT' && node.type !== 'checkbox') return `input ${node.type}`;
      }
    }
    for (let round = 0; round < 500; round++) {
      const lines = () => Array.from({ length: rand(30) }, () => ['a', 'b', 'c', 'd', ''][rand(5)]);
      const a = lines(), b = lines();
      const ops = diffLines(a, b);
      const old = ops.filter((o) => o[0] !== '+').map((o) => o[3]);
      const now = ops.filter((o) => o[0] !== '-').map((o) => o[3]);
      if (JSON.stringify(old) !== JSON.stringify(a) || JSON.stringify(now) !== JSON.stringify(b)) return `diff of ${JSON.stringify([a, b])}`;
    }
    return `ok: ${elements} elements`;
  });
  expect(seen.fuzz.startsWith('ok'), seen.fuzz);

  seen.page_errors = pageErrors;
  expect(pageErrors.length === 0, `errors in the page: ${pageErrors.join('; ')}`);
  console.log(JSON.stringify(seen));
} catch (error) {
  console.error(String(error && error.stack ? error.stack : error));
  console.error(JSON.stringify(seen));
  process.exitCode = 1;
} finally {
  await browser.close();
}
