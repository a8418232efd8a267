// What the browser tests share: Debian's chromium found (or a skip, 77),
// launched headless through playwright-core in a fresh profile directory
// (or a skip saying why it could not start), the checks and their count,
// script errors of a page collected, and the end: exit 0 pass, 1 fail.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const exe = process.env.CHROMIUM || '/usr/bin/chromium';

let failures = 0;
export function check(desc, ok, detail) {
	if (ok) console.log(`ok: ${desc}`);
	else { failures++; console.error(`FAIL: ${desc}${detail !== undefined ? ': ' + detail : ''}`); }
}

// Skip (77) when there is no chromium to run.
export function needChromium() {
	if (!existsSync(exe)) {
		console.error(`SKIP: ${exe} not found (apt-get install chromium)`);
		process.exit(77);
	}
}

// A persistent context in a fresh profile (launchPersistentContext passes it
// as --user-data-dir). options: playwright's, e.g. { viewport }; onSkip runs
// before a skip (to close what the test opened). Returns the context.
let profileDir = null;
export async function launch(options = {}, onSkip = () => {}) {
	needChromium();
	profileDir = mkdtempSync(join(tmpdir(), 'pprobe-chromium-'));
	try {
		return await chromium.launchPersistentContext(profileDir, {
			executablePath: exe,
			headless: true,
			args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
				'--disable-component-update', '--disable-sync', '--no-first-run'],
			timeout: 60000,
			...options,
		});
	} catch (e) {
		onSkip();
		rmSync(profileDir, { recursive: true, force: true });
		console.error(`SKIP: chromium (${exe}) could not be started: ${String(e.message).split('\n')[0]}`);
		process.exit(77);
	}
}

// Page errors and console errors into errors[] (checked empty at the end).
export function collectErrors(page, errors) {
	page.on('pageerror', (e) => errors.push(String(e)));
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
}

// Run the checks: an exception is a failure with its stack; then close the
// browser, run cleanup, remove the profile, and exit with the verdict.
export async function run(browser, body, cleanup = () => {}, passed = 'all browser checks passed') {
	try {
		await body();
	} catch (e) {
		failures++;
		console.error(`FAIL: ${e.stack || e}`);
	} finally {
		await browser.close();
		cleanup();
		if (profileDir) rmSync(profileDir, { recursive: true, force: true });
	}
	if (failures) { console.error(`${failures} check(s) failed`); process.exit(1); }
	console.log(passed);
}
