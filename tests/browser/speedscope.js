#!/usr/bin/env node
// What speedscope (pinned in package-lock.json, run from its own built
// index.html) makes of a profile: it is imported through speedscope's file
// input, as a user would, and read off the sandwich view, whose table sorts
// by self time.  Usage: node speedscope.js FILE
// Prints, tab-separated, "name NAME", "total VALUE" and "heaviest SELF NAME",
// values in the profile's unit (nanoseconds for a time); exits 1 when
// speedscope fails to import the file.
'use strict';
const path = require('path');
const fs = require('fs');
const os = require('os');
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const INDEX = path.join(__dirname, 'node_modules/speedscope/dist/release/index.html');

// speedscope prints times as "280.00ms (100%)", counts as "1.20K (40%)":
// back to one number in the profile's unit, as precise as those decimals.
const SCALE = { ns: 1, 'µs': 1e3, us: 1e3, ms: 1e6, s: 1e9, min: 60e9, h: 3600e9, K: 1e3, M: 1e6, B: 1e9 };
function value(text) {
	// (A profile without a unit, as folded stacks, gets toLocaleString's
	// "2,202,000,001".)
	const m = /^\s*([\d.]+)\s*([a-zµ]*|[KMB])\b/i.exec(text.replace(/\(.*$/, '').replace(/,/g, ''));
	if (!m) throw new Error(`not a speedscope value: ${JSON.stringify(text)}`);
	return Math.round(Number(m[1]) * (m[2] ? SCALE[m[2]] : 1));
}

(async () => {
	const file = process.argv[2];
	if (!file) {
		console.error('usage: speedscope.js FILE');
		process.exit(2);
	}
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prof-speedscope-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: CHROMIUM,
		headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	const errors = [];
	try {
		const page = context.pages()[0] || await context.newPage();
		page.on('pageerror', (e) => errors.push(String(e)));
		// Nothing but speedscope's own files: a profile must not reach out.
		await page.route((url) => url.protocol !== 'file:', (r) => {
			errors.push('request to ' + r.request().url());
			return r.abort();
		});
		await page.goto('file://' + INDEX + '#view=sandwich', { waitUntil: 'load' });
		// speedscope titles the page with the profile's name once it is in,
		// and says so in an alert when it cannot import it (the alert can come
		// before setInputFiles returns: the listener is in place first).
		const refused = new Promise((resolve, reject) => page.once('dialog', (d) => {
			reject(new Error(`speedscope refused ${file}: ${d.message()}`));
			d.dismiss().catch(() => {});
		}));
		refused.catch(() => {});
		await page.setInputFiles('input[type=file]', path.resolve(file));
		await Promise.race([refused,
			page.waitForFunction(() => document.title !== 'speedscope', null, { timeout: 10000 })
				.catch(() => { throw new Error(`speedscope did not import ${file} in 10 s`); })]);
		const seen = await page.evaluate(() => ({
			title: document.title,
			rows: Array.from(document.querySelectorAll('tr')).filter((r) => r.cells.length === 3 && r.cells[0].tagName === 'TD')
				.map((r) => Array.from(r.cells).map((c) => c.textContent)),
		}));
		if (!seen.title.endsWith(' - speedscope') || seen.rows.length === 0)
			throw new Error(`speedscope did not import ${file}: ${seen.title}`);
		// Every frame's self time, summed: the profile's total (a stack's
		// root need not be the same frame in every sample).  The table
		// draws only the rows in view: enough for a test's small profile.
		const total = seen.rows.reduce((sum, r) => sum + value(r[1]), 0);
		const [, self, name] = seen.rows[0];
		console.log(['name', seen.title.slice(0, -' - speedscope'.length)].join('\t'));
		console.log(['total', total].join('\t'));
		console.log(['heaviest', value(self), name].join('\t'));
		if (errors.length) throw new Error(errors.join('; '));
	} catch (e) {
		console.log('# FAIL: ' + (e.message || e));
		process.exitCode = 1;
	} finally {
		await context.close();
		fs.rmSync(userDataDir, { recursive: true, force: true });
	}
})();
