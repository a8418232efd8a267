// Real-browser test of pprobe's SVG flame graph: Debian's chromium, headless,
// driven by playwright-core. Usage: node flamegraph.test.mjs GRAPH.svg
// The SVG must be drawn from tests/e2e/flamegraph_browser.sh's input (1180
// samples on a 1200 px canvas: one sample per pixel). Exit 0 pass, 1 fail,
// 77 skip (chromium cannot run here; the reason is printed).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { check, collectErrors, launch, run } from './browser.mjs';

const svgPath = resolve(process.argv[2] || '');
function near(a, b, eps = 0.06) { return Math.abs(a - b) <= eps; }

const browser = await launch();
await run(browser, async () => {
	const page = await browser.newPage();
	const errors = [];
	collectErrors(page, errors);
	let dialogAnswer = null, dialogs = 0;
	page.on('dialog', async (d) => { dialogs++; await d.accept(dialogAnswer ?? ''); });

	await page.goto(pathToFileURL(svgPath).href);
	await page.waitForFunction(() => typeof fg !== 'undefined' && fg.frames.length > 0);

	// --- renders
	const r = await page.evaluate(() => {
		const frames = document.getElementById('frames');
		const root = frames.children[0].querySelector('rect');
		const box = root.getBoundingClientRect();
		return {
			n: frames.children.length,
			rootW: box.width, rootH: box.height,
			rootFill: getComputedStyle(root).fill,
			title: document.getElementById('title').textContent,
			titleBox: document.getElementById('title').getBBox().width,
			visible: [...frames.children].filter((g) => getComputedStyle(g).display !== 'none').length,
		};
	});
	check('all 9 frames are in the document', r.n === 9, r.n);
	check('all frames are displayed', r.visible === 9, r.visible);
	check('root frame is drawn 1180 px wide and 15 px high', near(r.rootW, 1180) && near(r.rootH, 15),
		`${r.rootW}x${r.rootH}`);
	check('title text is laid out', r.title === 'Flame Graph' && r.titleBox > 20, `${r.title} ${r.titleBox}`);
	const shot = await page.screenshot();
	check('screenshot is a non-trivial PNG', shot.length > 5000, shot.length);

	const rect = (name) => page.locator('#frames > g')
		.filter({ has: page.locator('title', { hasText: new RegExp(`^${name} \\(`) }) }).locator('rect');
	const attrs = (name) => page.evaluate((n) => {
		const g = [...document.getElementById('frames').children]
			.find((g) => g.querySelector('title').textContent.startsWith(n + ' ('));
		const rc = g.querySelector('rect');
		return { x: +rc.getAttribute('x'), w: +rc.getAttribute('width'), fill: rc.getAttribute('fill'),
			cls: g.getAttribute('class') || '', shown: getComputedStyle(g).display !== 'none',
			label: g.querySelector('text').textContent };
	}, name);
	const text = (id) => page.evaluate((i) => {
		const e = document.getElementById(i);
		return { t: e.textContent, hidden: e.classList.contains('hide') };
	}, id);

	// --- hover
	await rect('gamma').hover();
	check('hover shows the frame details', (await text('details')).t ===
		'Function: gamma (400 samples, 33.90%)', (await text('details')).t);

	// --- search
	dialogAnswer = '^ba_';
	await page.click('#search');
	check('search asks for a term', dialogs === 1, dialogs);
	let m = await text('matched');
	check('search shows the matched percentage', m.t === 'Matched: 42.4%' && !m.hidden, m.t);
	check('matched frames are highlighted', (await attrs('ba_leaf')).fill === 'rgb(230,0,230)' &&
		(await attrs('ba_other')).fill === 'rgb(230,0,230)');
	const gammaFill = (await attrs('gamma')).fill;
	check('other frames keep their colour', gammaFill !== 'rgb(230,0,230)', gammaFill);
	check('search button offers a reset', (await text('search')).t === 'Reset Search');

	// --- zoom (search stays active and is recomputed for the zoomed frame)
	await rect('beta').click();
	const beta = await attrs('beta'), other = await attrs('ba_other');
	check('zoomed frame fills the width', near(beta.x, 10) && near(beta.w, 1180), `${beta.x} ${beta.w}`);
	check('child is scaled by 1180/380', near(other.x, 10 + 180 * 1180 / 380, 0.1) &&
		near(other.w, 200 * 1180 / 380, 0.1), `${other.x} ${other.w}`);
	check('sibling is hidden', !(await attrs('alpha')).shown && !(await attrs('gamma')).shown);
	check('ancestors stay, dimmed', (await attrs('main')).cls.includes('parent') &&
		(await attrs('main')).shown && near((await attrs('main')).w, 1180));
	check('unzoom button appears', !(await text('unzoom')).hidden);
	m = await text('matched');
	check('matched percentage follows the zoom', m.t === 'Matched: 52.6%', m.t);
	check('zoomed label is refitted', (await attrs('ba_other')).label === 'ba_other');

	// --- reset zoom
	await page.click('#unzoom');
	const a2 = await attrs('alpha'), b2 = await attrs('beta');
	check('reset zoom restores geometry', a2.shown && near(a2.x, 10) && near(a2.w, 400) &&
		near(b2.x, 410) && near(b2.w, 380) && !b2.cls.includes('parent'), JSON.stringify([a2, b2]));
	check('unzoom button hides again', (await text('unzoom')).hidden);
	m = await text('matched');
	check('matched percentage back to the whole graph', m.t === 'Matched: 42.4%', m.t);

	// --- reset search
	await page.click('#search');
	m = await text('matched');
	check('reset search hides the percentage', m.hidden);
	check('reset search restores colours', (await attrs('ba_leaf')).fill !== 'rgb(230,0,230)' &&
		(await attrs('gamma')).fill === gammaFill);

	// --- escaped names survive the round trip into the DOM
	const tpl = await page.evaluate(() => [...document.querySelectorAll('#frames title')]
		.map((t) => t.textContent).find((t) => t.startsWith('tpl')));
	// --- keyboard: Ctrl-F opens the search prompt; a bad regexp is reported
	dialogAnswer = '(';
	await page.keyboard.press('Control+f');
	check('Ctrl-F prompts', dialogs === 2, dialogs);
	check('invalid regexp is reported, not thrown', (await text('matched')).t === 'Invalid regexp',
		(await text('matched')).t);
	await page.click('#search');

	// --- icicle graph (root on top): zoom keeps ancestors above the frame
	const icicle = process.argv[3];
	if (icicle) {
		await page.goto(pathToFileURL(resolve(icicle)).href);
		await page.waitForFunction(() => typeof fg !== 'undefined' && fg.frames.length > 0);
		const mainY = (await page.evaluate(() => fg.frames.find((f) => f.name === 'main').y));
		const betaY = (await page.evaluate(() => fg.frames.find((f) => f.name === 'beta').y));
		check('icicle: children below parents', betaY > mainY, `${betaY} ${mainY}`);
		await rect('beta').click();
		const b = await attrs('beta'), mn = await attrs('main'), o2 = await attrs('ba_other');
		check('icicle zoom fills the width', near(b.x, 10) && near(b.w, 1180), `${b.x} ${b.w}`);
		check('icicle zoom keeps ancestors', mn.shown && mn.cls.includes('parent'));
		check('icicle zoom scales children', near(o2.w, 200 * 1180 / 380, 0.1), o2.w);
		check('icicle zoom hides siblings', !(await attrs('alpha')).shown);
		check('zoom state is in the URL', /[?&]x=/.test(page.url()) && /[?&]y=/.test(page.url()), page.url());
		// reopening that URL restores the zoom
		await page.goto(page.url());
		await page.waitForFunction(() => typeof fg !== 'undefined' && fg.frames.length > 0);
		check('zoom restored from the URL', near((await attrs('beta')).w, 1180), (await attrs('beta')).w);
		await rect('all').click();
		check('clicking the root resets the zoom', near((await attrs('beta')).w, 380) &&
			(await attrs('alpha')).shown && (await text('unzoom')).hidden);
	}

	check('escaped name reaches the DOM intact', tpl === 'tpl<a&b> (100 samples, 8.47%)', tpl);
	check('no script errors', errors.length === 0, errors.join('; '));
});
