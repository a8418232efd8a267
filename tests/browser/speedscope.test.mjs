// pprobe's speedscope files in speedscope itself (the npm package's
// dist/release, served from a local HTTP server and opened with
// #profileURL=), in Debian's chromium, headless, driven by playwright-core.
//
// Usage: node speedscope.test.mjs SYNTH.speedscope.json [REC.speedscope.json]
//   SYNTH: written by `test_speedscope --write` (exact expectations below);
//   REC: a recording (tests/e2e/record_speedscope.sh checks the file against
//   folded output); what speedscope shows of it is checked against the file.
// Exit 0 pass, 1 fail, 77 skip (chromium cannot run here; the reason is printed).
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { join, resolve, extname, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { check, collectErrors, launch, needChromium, run } from './browser.mjs';

needChromium();
const require = createRequire(import.meta.url);
const dist = join(dirname(require.resolve('speedscope/package.json')), 'dist', 'release');
const [synthPath, recPath] = process.argv.slice(2).map((p) => resolve(p));

// speedscope's files, and the profiles under /p/N.json
const profiles = [synthPath, recPath].filter(Boolean);
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
	'.wasm': 'application/wasm', '.woff2': 'font/woff2', '.png': 'image/png', '.ico': 'image/x-icon' };
const server = http.createServer((req, res) => {
	const path = new URL(req.url, 'http://localhost').pathname;
	const m = /^\/p\/(\d+)\.json$/.exec(path);
	const file = m ? profiles[+m[1]] : join(dist, path === '/' ? 'index.html' : path.replace(/\.\./g, ''));
	try {
		const body = readFileSync(file);
		res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream' });
		res.end(body);
	} catch {
		res.writeHead(404);
		res.end();
	}
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await launch({ viewport: { width: 1200, height: 800 } }, () => server.close());

const errors = [];
let page, loads = 0;

// Open profile file N in VIEW (time-ordered, left-heavy, sandwich); wait
// until speedscope shows its "(i/n)" profile counter.
async function open(n, view) {
	if (page) await page.close();
	page = await browser.newPage();
	collectErrors(page, errors);
	const url = `${base}/p/${n}.json`;
	await page.goto(`${base}/?load=${++loads}#profileURL=${encodeURIComponent(url)}&view=${view}`);
	await page.waitForFunction(() => [...document.querySelectorAll('span')].some((s) => /^\(\d+\/\d+\)$/.test(s.textContent)),
		null, { timeout: 30000 });
}

// The toolbar's profile name and "(i/n)".
const title = () => page.evaluate(() => {
	const c = [...document.querySelectorAll('span')].find((s) => /^\(\d+\/\d+\)$/.test(s.textContent));
	return { name: c.parentElement.firstChild.textContent.trim(), counter: c.textContent };
});

// The profile list speedscope shows on a click on the toolbar's name:
// [{ name, weight }] in its order. Closed again with Escape.
async function profileList() {
	const t = await title();
	await page.getByText(`${t.name} ${t.counter}`, { exact: true }).click();
	await page.waitForSelector('tr[title]');
	const rows = await page.evaluate(() => [...document.querySelectorAll('tr[title]')]
		.map((tr) => ({ name: tr.getAttribute('title'), weight: tr.cells[tr.cells.length - 1].textContent })));
	await page.keyboard.press('Escape');
	return rows;
}

async function selectProfile(name) {
	const t = await title();
	await page.getByText(`${t.name} ${t.counter}`, { exact: true }).click();
	await page.click(`tr[title="${name}"]`);
	await page.waitForFunction((n) => {
		const c = [...document.querySelectorAll('span')].find((s) => /^\(\d+\/\d+\)$/.test(s.textContent));
		return c && c.parentElement.firstChild.textContent.trim() === n;
	}, name);
}

// The sandwich view's table: [{ total, self, name }] in its order (by self, descending).
const sandwich = () => page.evaluate(() => [...document.querySelectorAll('table tr')]
	.filter((tr) => tr.cells.length === 3 && !tr.hasAttribute('title') && tr.cells[0].tagName === 'TD')
	.map((tr) => ({ total: tr.cells[0].textContent.trim(), self: tr.cells[1].textContent.trim(),
		name: tr.cells[2].textContent.trim() })));

// The hover tooltip of a flame chart: { weight, name } or null.
const tooltip = () => page.evaluate(() => {
	const tip = [...document.querySelectorAll('div')].find((d) => d.style.top && d.style.left &&
		d.firstElementChild && d.firstElementChild.firstElementChild &&
		d.firstElementChild.firstElementChild.tagName === 'SPAN');
	if (!tip) return null;
	const inner = tip.firstElementChild.cloneNode(true);
	const weight = inner.firstElementChild.textContent;
	inner.firstElementChild.remove();
	for (const d of inner.querySelectorAll('div')) d.remove();
	return { weight, name: inner.textContent.trim() };
});

// The stack a flame chart draws at x (pixels), outermost first, read from
// the tooltips of a walk down the chart.
async function stackAt(x) {
	const box = await page.evaluate(() => {
		const cs = [...document.querySelectorAll('canvas')].map((c) => c.getBoundingClientRect())
			.filter((r) => r.width > 0 && r.height > 150 && r.top > 0);
		return cs.length ? { top: cs[0].top, bottom: cs[0].bottom } : null;
	});
	if (!box) return [];
	const stack = [];
	let misses = 0;
	for (let y = box.top + 2; y < box.bottom && misses < 4; y += 5) {
		await page.mouse.move(x, y);
		const t = await tooltip();
		if (!t) { if (stack.length) misses++; continue; }
		misses = 0;
		const last = stack[stack.length - 1];
		if (!last || last.name !== t.name || last.weight !== t.weight) stack.push(t);
	}
	await page.mouse.move(1, 1);
	return stack;
}
const names = (stack) => stack.map((f) => f.name).join(';');

await run(browser, async () => {
	// ---- the synthetic file: exact expectations
	await open(0, 'sandwich');
	let t = await title();
	check('the busiest thread is shown first', t.name === 'app pid: 100 tid: 100' && t.counter === '(1/3)',
		JSON.stringify(t));
	const list = await profileList();
	check('the profile list shows every thread, in order, with its total',
		JSON.stringify(list) === JSON.stringify([
			{ name: 'app pid: 100 tid: 100', weight: '600.00ns' },
			{ name: 'app pid: 100 tid: 101', weight: '75.00ns' },
			{ name: 'tool pid: 102 tid: 102', weight: '70.00ns' }]), JSON.stringify(list));
	let rows = await sandwich();
	check('sandwich: the top function by self time', rows.length === 3 && rows[0].name === 'alpha' &&
		rows[0].self === '400.00ns (67%)' && rows[1].name === 'beta' && rows[1].self === '200.00ns (33%)',
		JSON.stringify(rows));
	check('sandwich: the root frame holds it all', rows.some((r) => r.name === 'main' && r.total === '600.00ns (100%)'),
		JSON.stringify(rows));

	await selectProfile('app pid: 100 tid: 101');
	rows = await sandwich();
	check('another thread: its own functions, escaped names intact',
		rows.length === 4 && rows[0].name === 'beta' && rows[0].self === '50.00ns (67%)' &&
		rows[1].name === 'tpl<a&b> "q"' && rows[1].self === '25.00ns (33%)', JSON.stringify(rows));

	await open(0, 'left-heavy');
	let s = await stackAt(20);
	check('left heavy: the heaviest stack first', names(s) === 'main;alpha' && s[1].weight === '400.00ns (67%)',
		JSON.stringify(s));

	// Time Order: samples alpha 100, beta 200, alpha 300 across the width
	await open(0, 'time-ordered');
	const at = [[60, 'main;alpha', '100.00ns (17%)'], [400, 'main;beta', '200.00ns (33%)'],
		[900, 'main;alpha', '300.00ns (50%)']];
	for (const [x, want, w] of at) {
		s = await stackAt(x);
		check(`time order: the sample at x=${x} is ${want} (${w})`, names(s) === want && s[1].weight === w,
			JSON.stringify(s));
	}
	const shot = await page.screenshot();
	check('time order: a non-trivial screenshot', shot.length > 5000, shot.length);

	// ---- a recording: what speedscope shows is what the file says
	if (recPath) {
		const json = JSON.parse(readFileSync(recPath, 'utf8'));
		const fname = (i) => json.shared.frames[i].name;
		await open(1, 'sandwich');
		const rl = await profileList();
		check('recording: the profile list shows every thread of the file, in order',
			rl.length > 1 && JSON.stringify(rl.map((r) => r.name)) === JSON.stringify(json.profiles.map((p) => p.name)),
			JSON.stringify(rl.map((r) => r.name)));
		const active = json.profiles[json.activeProfileIndex];
		t = await title();
		check('recording: the busiest thread is shown first', t.name === active.name &&
			t.counter === `(${json.activeProfileIndex + 1}/${json.profiles.length})`, JSON.stringify(t));
		const self = new Map();
		active.samples.forEach((smp, i) => {
			const leaf = fname(smp[smp.length - 1]);
			self.set(leaf, (self.get(leaf) || 0) + active.weights[i]);
		});
		const top = [...self.entries()].sort((a, b) => b[1] - a[1])[0];
		rows = await sandwich();
		check(`recording: sandwich's top function is the thread's top leaf (${top[0]})`,
			rows.length > 0 && rows[0].name === top[0], rows.length && rows[0].name);
		await open(1, 'time-ordered');
		s = await stackAt(600);
		const outer = new Set(active.samples.map((smp) => fname(smp[0])));
		const known = new Set(json.shared.frames.map((f) => f.name));
		check('recording: time order draws a stack of the thread, outermost frame on top',
			s.length >= 2 && outer.has(s[0].name) && s.every((f) => known.has(f.name)), JSON.stringify(s));
	}
	check('no script errors', errors.length === 0, errors.join('; '));
}, () => server.close(), 'all speedscope browser checks passed');
