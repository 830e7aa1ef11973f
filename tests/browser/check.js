#!/usr/bin/env node
// Browser checks of prof-svg's interactive SVGs, in Debian's chromium driven
// by playwright-core.  Usage: node check.js CHECK FILE.svg [ARGS...]
// Prints "# ..." diagnostics and exits 0 when the check holds, 1 when not.
'use strict';
const path = require('path');
const fs = require('fs');
const { execFileSync } = require('child_process');
const os = require('os');
const { chromium } = require('playwright-core');
const { ARGS } = require('./launch');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

function fail(msg) {
	console.log('# FAIL: ' + msg);
	process.exitCode = 1;
}

function expect(cond, msg) {
	if (!cond) fail(msg);
	return cond;
}

function near(a, b, tol) {
	return Math.abs(a - b) <= tol;
}

// A context of its own, in the bats file's browser (tests/browser/server.js)
// when PROF_BROWSER_WS names one, else in a browser of its own.
async function newContext() {
	if (process.env.PROF_BROWSER_WS) {
		const browser = await chromium.connect(process.env.PROF_BROWSER_WS);
		const context = await browser.newContext();
		return { context, done: () => browser.close(), userDataDir: null };
	}
	const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prof-svg-chromium-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: CHROMIUM,
		headless: true,
		args: ARGS,
	});
	return { context, done: async () => {}, userDataDir };
}

async function open(file, query) {
	const { context, done, userDataDir } = await newContext();
	const page = context.pages()[0] || await context.newPage();
	const url = 'file://' + path.resolve(file) + (query || '');
	const requests = [], dialogs = [], errors = [];
	page.on('request', (r) => requests.push(r.url()));
	page.on('dialog', async (d) => {
		dialogs.push(d.type() + ':' + d.message());
		if (page.promptAnswer !== undefined && d.type() === 'prompt') await d.accept(page.promptAnswer);
		else await d.dismiss();
	});
	page.on('pageerror', (e) => errors.push(String(e)));
	// A renderer stuck in a script cannot be closed politely: after 5 s the
	// browser is killed, found by its profile directory, which is ours.
	const close = async () => {
		// The timer is unref'd: a pending one would hold node up for its
		// whole 5 s after a close that went well.
		await Promise.race([context.close(), new Promise((r) => setTimeout(r, 5000).unref())]);
		await Promise.race([done(), new Promise((r) => setTimeout(r, 5000).unref())]);
		if (!userDataDir)
			return;
		try { execFileSync('pkill', ['-KILL', '-f', userDataDir]); } catch (e) { /* none left */ }
		fs.rmSync(userDataDir, { recursive: true, force: true });
	};
	const t0 = Date.now();
	try {
		await page.goto(url, { waitUntil: 'load' });
	} catch (e) {
		await close();
		throw e;
	}
	const loadMs = Date.now() - t0;
	return { context, page, url, requests, dialogs, errors, loadMs, close };
}

// What the user sees of every frame, in document order: its on-screen x and
// width inside the graph's margins (zooming may scale and clip the frames),
// and whether any of it is visible at all.
function frames(page) {
	return page.evaluate(() => {
		const svg = document.documentElement, xpad = window.fgConf.xpad;
		const W = +svg.getAttribute('width'), lo = xpad, hi = W - xpad;
		return Array.from(document.querySelectorAll('#frames > g')).map((g) => {
			const r = g.querySelector('rect'), t = g.querySelector('title');
			const text = g.querySelector('text'), b = r.getBoundingClientRect();
			const left = Math.max(b.left, lo), right = Math.min(b.right, hi);
			const cs = getComputedStyle(g);
			const w = Math.max(0, right - left);
			const tb = text.textContent ? text.getBoundingClientRect() : null;
			return {
				title: t ? t.textContent : '',
				x: w > 0 ? left : NaN, w,
				d: +g.getAttribute('data-d'), sx: +g.getAttribute('data-x'), sw: +g.getAttribute('data-w'),
				cls: g.getAttribute('class'),
				hidden: w <= 0.02 || cs.display === 'none' || cs.visibility === 'hidden',
				label: text.textContent,
				labelX: tb ? tb.left : NaN,
			};
		});
	});
}

function findFrame(list, name) {
	return list.findIndex((f) => f.title.startsWith(name + ' ('));
}

async function clickFrame(page, index) {
	await page.locator('#frames > g').nth(index).locator('rect').click({ force: true });
}

// The matched text and the highlighted frames after each step a viewer
// takes with a search: as it is, after a click on the widest frame under
// the root zooms, with case ignored, after Reset Zoom, with case kept,
// and after the search prompt is answered with ANSWER.  Each step
// searches again.
async function searchSteps(page, answer) {
	const snap = () => page.evaluate(() => {
		const gs = Array.from(document.querySelectorAll('#frames > g'));
		return {
			text: document.getElementById('matched').textContent, frames: gs.length,
			hits: gs.flatMap((g, i) => (/\bmatch\b/.test(g.getAttribute('class')) ? [i] : [])).join(' '),
		};
	});
	const widest = await page.evaluate(() => {
		let best = -1, bw = -1;
		document.querySelectorAll('#frames > g').forEach((g, i) => {
			if (+g.getAttribute('data-d') === 1 && +g.getAttribute('data-w') > bw) {
				bw = +g.getAttribute('data-w');
				best = i;
			}
		});
		return best;
	});
	const out = [await snap()];
	await clickFrame(page, widest);
	out.push(await snap());
	await page.click('#ignorecase');
	out.push(await snap());
	await page.click('#unzoom');
	out.push(await snap());
	await page.click('#ignorecase');
	out.push(await snap());
	page.promptAnswer = answer;
	await page.keyboard.press('Control+f');
	out.push(await snap());
	return out;
}

// Runs in the page: window.fg.linkRegex against RegExp on generated
// patterns and names; returns the counts and the first disagreements.
function generatedMatches([seed, count]) {
	let x = seed >>> 0 || 1;
	const rnd = (n) => {
		x ^= x << 13;
		x ^= x >>> 17;
		x ^= x << 5;
		return (x >>> 0) % n;
	};
	const pick = (a) => a[rnd(a.length)];
	// \0 comes only in a class: followed by a digit it would be octal.
	const atoms = ['a', 'b', 'A', 'B', ':', '<', '>', '_', ' ', '-', '.', '\\.', '\\d', '\\D', '\\w', '\\W',
		'\\s', '\\S', '[ab]', '[^ab]', '[a-c]', '[A-Z_]', '[^:]', '[\\d-z]', '[-a]', '[a-]', '[]', '[^]',
		'\\x41', '\\u0062', '\\:', '\\<', '\u00e9', '\u00c9', '\u017f', 'S', 's', 'k', 'K', '\u212a', '[\u017f]',
		'[k-s]', '[^\\w]', '{', '}', ']', '\\b', '\\B', '^', '$', '1', '[\\0]', '\\t', '[\\b]', '[\\s\\S]'];
	const quants = ['', '', '', '', '', '', '', '', '*', '+', '?', '{2}', '{1,2}', '{1,}', '{0,3}?', '*?',
		'+?', '??', '{0}', '{2,3}'];
	const chars = [...'abAB:<>_ .1-\u00e9\u00c9\u017fSskK\u212a\t\u0000x\u{1F600}'];
	const gen = (d) => {
		let s = rnd(4) ? '' : '^';
		for (let n = 1 + rnd(4); n > 0; n--) {
			if (d < 2 && rnd(4) === 0) {
				s += '(' + (rnd(2) ? '?:' : '') + gen(d + 1) + (rnd(3) ? '' : '|' + gen(d + 1)) + ')' +
					pick(['', '', '?', '{1,2}', '??', '{0,2}']);
			} else {
				const a = pick(atoms);
				s += a + (/^(\^|\$|\\b|\\B)$/.test(a) ? '' : pick(quants));
			}
		}
		if (rnd(4) === 0) s += '$';
		if (rnd(5) === 0) s += '|' + gen(d + 1);
		return s;
	};
	const name = () => {
		let s = '';
		for (let n = rnd(20); n > 0; n--) s += pick(chars);
		return s;
	};
	const r = { patterns: 0, pairs: 0, matched: 0, bad: [] };
	const bad = (m) => r.bad.length < 10 && r.bad.push(m);
	for (let k = 0; k < count; k++) {
		const p = gen(0);
		for (const flags of ['', 'i']) {
			let re;
			try {
				re = new RegExp(p, flags);
			} catch (e) {
				continue;
			}
			r.patterns++;
			const m = window.fg.linkRegex(p, flags === 'i');
			if (!m) {
				bad(`${JSON.stringify(p)}/${flags} declined`);
				continue;
			}
			for (let j = 0; j < 20; j++) {
				const s = name(), want = re.test(s);
				r.pairs++;
				r.matched += want;
				if (m(s) !== want) bad(`${JSON.stringify(p)}/${flags} on ${JSON.stringify(s)}: ${!want}, RegExp ${want}`);
			}
		}
	}
	// Outside the subset: backreferences, lookaround, named groups,
	// escapes that mean something else with the u flag, counts that
	// unroll too far, and patterns too long.
	for (const p of ['(a)\\1', '(?=a)', '(?!a)', '(?<=a)b', '(?<n>a)', '\\k<n>', '\\p{L}', '\\cA', '\\01', '\\8',
		'a{501}', '(a|b){0,250}', '((a{0,16}){0,16}){0,16}', 'x'.repeat(501)])
		if (window.fg.linkRegex(p, false)) bad(`${JSON.stringify(p).substring(0, 40)} not declined`);
	// Annex B's literal braces and brackets, lambdas' names, counts at
	// the limit, empty groups repeated without end.
	for (const [p, s] of [['{lambda()#1}', '{lambda#1}'], ['a{1', 'a{1'], ['a]b', 'a]b'], ['\\_', '_'],
		['x\\x4142', 'xA42'], ['.{0,16}'.repeat(12) + '#', '#'], ['(){99999999999}x', 'x'], ['a{250}', 'a'.repeat(250)]]) {
		const m = window.fg.linkRegex(p, false);
		if (!m || !m(s) || m(s.substring(1))) bad(`${JSON.stringify(p).substring(0, 40)} on ${JSON.stringify(s).substring(0, 40)}`);
	}
	return r;
}

const checks = {
	// zoom FILE NAME: clicking NAME fills the width, ancestors dim,
	// the rest hides; clicking an ancestor zooms out; Reset Zoom restores.
	async zoom(file, name) {
		const b = await open(file);
		try {
			const before = await frames(b.page);
			const i = findFrame(before, name);
			if (!expect(i >= 0, `no frame named ${name}`)) return;
			const full = before[0].w;
			await clickFrame(b.page, i);
			const after = await frames(b.page);
			const z = after[i];
			expect(near(z.x, before[0].x, 0.01) && near(z.w, full, 0.01),
				`zoomed frame at x=${z.x} w=${z.w}, want x=${before[0].x} w=${full}`);
			let anc = 0, hid = 0, desc = 0;
			after.forEach((f, j) => {
				const inside = f.sx >= z.sx - 1e-9 && f.sx + f.sw <= z.sx + z.sw + 1e-9;
				if (f.d < z.d && f.sx <= z.sx && f.sx + f.sw >= z.sx + z.sw) {
					anc++;
					expect(/\bparent\b/.test(f.cls) && !f.hidden && near(f.w, full, 0.01),
						`ancestor ${f.title} not dimmed at full width`);
				} else if (f.d >= z.d && inside) {
					desc++;
					const want = before[j].w * full / before[i].w;
					expect(!f.hidden && near(f.w, want, 0.02),
						`descendant ${f.title} width ${f.w}, want ${want}`);
				} else {
					hid++;
					expect(f.hidden, `frame ${f.title} outside the zoom is not hidden`);
				}
			});
			expect(anc === z.d, `${anc} ancestors for depth ${z.d}`);
			// The label is refitted to the new width and stays at the frame's left.
			expect(z.label === name, `zoomed frame labelled "${z.label}", want "${name}"`);
			expect(z.labelX >= z.x + 2 - 0.01 && z.labelX <= z.x + 5 + 0.01, `label at ${z.labelX}, frame at ${z.x}`);
			expect(await b.page.isVisible('#unzoom'), 'Reset Zoom is not shown');
			console.log(`# zoomed ${name}: ${anc} ancestors, ${desc} in view, ${hid} hidden`);
			// Clicking the parent zooms out to it.
			if (z.d > 1) {
				const p = after.findIndex((f) => f.d === z.d - 1 && /\bparent\b/.test(f.cls));
				await clickFrame(b.page, p);
				const out = await frames(b.page);
				expect(near(out[p].w, full, 0.01) && !/\bparent\b/.test(out[p].cls),
					'clicking an ancestor does not zoom out to it');
			}
			await b.page.click('#unzoom');
			const reset = await frames(b.page);
			reset.forEach((f, j) => expect(!f.hidden && !/\bparent\b/.test(f.cls) &&
				near(f.w, before[j].w, 0.011) && (near(f.x, before[j].x, 0.011) || f.w < 0.011) &&
				f.label === before[j].label,
				`frame ${f.title} not restored by Reset Zoom`));
			expect(!(await b.page.isVisible('#unzoom')), 'Reset Zoom still shown');
			// Esc resets a zoom too.
			await clickFrame(b.page, i);
			await b.page.keyboard.press('Escape');
			const esc = await frames(b.page);
			esc.forEach((f, j) => expect(!f.hidden && near(f.w, before[j].w, 0.011),
				`frame ${f.title} not restored by Esc`));
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
		} finally {
			await b.close();
		}
	},

	// search FILE REGEX PCT COUNT [TIME]: Ctrl-F and a regex highlight
	// COUNT frames and report "Matched: PCT%", or "Matched: PCT% (TIME)"
	// in a graph of times; Esc clears.
	async search(file, regex, pct, count, time) {
		const b = await open(file);
		try {
			b.page.promptAnswer = regex;
			await b.page.locator('#frames').hover({ position: { x: 5, y: 5 }, force: true }).catch(() => {});
			await b.page.keyboard.press('Control+f');
			await b.page.waitForFunction(() => document.getElementById('matched').textContent.trim() !== '');
			const got = await b.page.textContent('#matched');
			const want = `Matched: ${pct}%` + (time ? ` (${time})` : '');
			expect(got === want, `matched text "${got}", want "${want}"`);
			const n = await b.page.locator('#frames > g.match').count();
			expect(n === +count, `${n} frames highlighted, want ${count}`);
			const fill = await b.page.evaluate(() => {
				const r = document.querySelector('#frames > g.match rect');
				return r ? getComputedStyle(r).fill : '';
			});
			expect(fill === 'rgb(230, 0, 230)', `highlight fill ${fill}`);
			// Case toggle: ignoring case can only match more.
			await b.page.click('#ignorecase');
			const ni = await b.page.locator('#frames > g.match').count();
			expect(ni >= n, `ignoring case matched ${ni} < ${n}`);
			console.log(`# ${regex}: ${n} frames, ${got}; ignoring case ${ni}`);
			await b.page.keyboard.press('Escape');
			expect(await b.page.locator('#frames > g.match').count() === 0, 'Esc left highlights');
			expect((await b.page.textContent('#matched')).trim() === '', 'Esc left the matched text');
			expect(b.dialogs.length === 1 && b.dialogs[0].startsWith('prompt:'),
				'dialogs: ' + b.dialogs.join('; '));
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
		} finally {
			await b.close();
		}
	},

	// details FILE NAME WANT: hovering the first frame named NAME shows
	// WANT in the details line, and leaving it clears the line.
	async details(file, name, want) {
		const b = await open(file);
		try {
			const i = findFrame(await frames(b.page), name);
			if (!expect(i >= 0, `no frame named ${name}`)) return;
			const rect = b.page.locator('#frames > g').nth(i).locator('rect');
			await rect.hover({ force: true });
			const got = await b.page.textContent('#details');
			expect(got === want, `details "${got}", want "${want}"`);
			const fill = await rect.evaluate((r) => getComputedStyle(r).fill);
			console.log(`# hovered ${name} (${fill}): "${got}"`);
			await b.page.mouse.move(1, 1);
			expect((await b.page.textContent('#details')).trim() === '', 'the details line was not cleared');
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
		} finally {
			await b.close();
		}
	},

	// legends FILE: the legends, as the browser draws their text, stay
	// inside the margins and clear of the titles, the buttons (Reset Zoom
	// shown) and every frame.
	async legends(file) {
		const b = await open(file);
		try {
			await b.page.evaluate(() => document.getElementById('unzoom').classList.remove('hide'));
			const r = await b.page.evaluate(() => {
				const box = (el) => { const q = el.getBoundingClientRect(); return { l: q.left, r: q.right, t: q.top, b: q.bottom }; };
				const get = (sel) => Array.from(document.querySelectorAll(sel)).map(box);
				return {
					W: +document.documentElement.getAttribute('width'), xpad: window.fgConf.xpad,
					legends: get('#legend > *, #offcpu-legend > *'),
					others: get('#title, #subtitle, #unzoom, #search, #ignorecase, #frames rect'),
				};
			});
			const meet = (p, q) => p.l < q.r && q.l < p.r && p.t < q.b && q.t < p.b;
			let n = 0;
			for (const e of r.legends) {
				n++;
				expect(e.l >= r.xpad - 0.01 && e.r <= r.W - r.xpad + 0.01,
					`legend element at ${e.l.toFixed(1)}..${e.r.toFixed(1)} outside ${r.xpad}..${r.W - r.xpad}`);
				for (const o of r.others)
					expect(!meet(e, o), `legend element ${JSON.stringify(e)} meets ${JSON.stringify(o)}`);
			}
			console.log(`# ${n} legend elements clear of ${r.others.length} others`);
			expect(n >= 6, 'too few legend elements');
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
		} finally {
			await b.close();
		}
	},

	// link FILE PATTERN EQUIV...: a page opened with ?s=PATTERN (a search
	// that came with a link, someone else's choice) finishes its search and
	// highlights the same frames, with the same share, as the viewer's own
	// search for EQUIV (PATTERN itself, or a pattern known to match the
	// same names that RegExp runs without backtracking): on load, after a
	// click zooms, with case ignored, after Reset Zoom, and when the
	// search prompt is answered with the pattern unchanged.  An empty
	// EQUIV: PATTERN is outside the link matcher, is matched as text, and
	// the page says so.  Each search highlights some frames but not all, or
	// agreeing would say little.
	async link(file, ...pairs) {
		const b = await open(file);
		try {
			for (let k = 0; k + 1 < pairs.length; k += 2) {
				const pattern = pairs[k], asText = pairs[k + 1] === '';
				const equiv = asText ? pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : pairs[k + 1];
				const short = pattern.length > 40 ? pattern.substring(0, 40) + '...' : pattern;
				await b.page.goto(b.url + '?s=' + encodeURIComponent(pattern));
				const got = await searchSteps(b.page, pattern);
				await b.page.goto(b.url);
				await b.page.evaluate((r) => window.fg.search(r), equiv);
				const want = await searchSteps(b.page, equiv);
				const suffix = asText ? " (the link's pattern, as text)" : '';
				want.forEach((w, j) => {
					expect(got[j].text === w.text + suffix,
						`${short}, step ${j}: matched text "${got[j].text}", want "${w.text + suffix}"`);
					expect(got[j].hits === w.hits, `${short}, step ${j}: frames ${got[j].hits}, want ${w.hits}`);
				});
				const n = got[0].hits ? got[0].hits.split(' ').length : 0;
				expect(n > 0 && n < got[0].frames, `${short}: ${n} of ${got[0].frames} frames highlighted`);
				console.log(`# ${pattern}: ${n} of ${got[0].frames} frames, "${got[0].text}"`);
			}
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
		} finally {
			await b.close();
		}
	},

	// matcher FILE [SEED [COUNT]]: the page's matcher for a link's pattern
	// (window.fg.linkRegex) answers as RegExp.test does, with and without
	// case, for COUNT generated patterns of its subset and 20 generated
	// names each; it declines the patterns outside its subset.  The
	// generated groups repeat a bounded number of times, so that RegExp
	// itself stays quick.
	async matcher(file, seed, count) {
		const b = await open(file);
		try {
			const r = await b.page.evaluate(generatedMatches, [+(seed || 1), +(count || 3000)]);
			r.bad.forEach((m) => fail(m));
			expect(r.pairs > 100000, `only ${r.pairs} pairs compared`);
			expect(r.matched > 0.1 * r.pairs && r.matched < 0.9 * r.pairs,
				`${r.matched} of ${r.pairs} pairs matched: the generated cases test little`);
			console.log(`# ${r.patterns} patterns, ${r.pairs} pairs, ${r.matched} matching: ${r.bad.length} disagreements`);
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
		} finally {
			await b.close();
		}
	},

	// url FILE NAME REGEX: zoom and search are kept in the URL, and a
	// new page opened at that URL shows the same state.
	async url(file, name, regex) {
		let url, state;
		const b = await open(file);
		try {
			const list = await frames(b.page);
			const i = findFrame(list, name);
			if (!expect(i >= 0, `no frame named ${name}`)) return;
			await clickFrame(b.page, i);
			await b.page.evaluate((r) => window.fg.search(r), regex);
			url = b.page.url();
			state = { frames: await frames(b.page), matched: await b.page.textContent('#matched') };
			expect(/[?&]x=/.test(url) && /[?&]s=/.test(url), `URL ${url} lacks x= and s=`);
		} finally {
			await b.close();
		}
		const q = url.substring(url.indexOf('?'));
		const c = await open(file, q);
		try {
			const again = await frames(c.page);
			expect(await c.page.textContent('#matched') === state.matched, 'matched text not restored');
			again.forEach((f, j) => {
				const s = state.frames[j];
				expect(f.hidden === s.hidden && f.cls === s.cls && near(f.w, s.w, 0.01),
					`frame ${f.title} not restored (${f.cls}/${f.w} vs ${s.cls}/${s.w})`);
			});
			console.log(`# restored from ${q}`);
			expect(c.errors.length === 0, 'page errors: ' + c.errors.join('; '));
		} finally {
			await c.close();
		}
	},

	// hostile FILE: hovering, clicking and searching every frame runs no
	// script of the input's (no dialog, no page error, no new element).
	async hostile(file) {
		const b = await open(file);
		try {
			const list = await frames(b.page);
			const scripts = await b.page.locator('script').count();
			for (let i = 0; i < list.length; i++) {
				await b.page.locator('#frames > g').nth(i).locator('rect').hover({ force: true });
				await clickFrame(b.page, i);
				await b.page.keyboard.press('Escape');
			}
			await b.page.evaluate(() => window.fg.search('script|img|\\]\\]>'));
			expect(await b.page.locator('#frames > g.match').count() > 0, 'search found nothing');
			expect(await b.page.locator('script').count() === scripts, 'script elements appeared');
			expect(await b.page.locator('img, iframe, foreignObject').count() === 0, 'markup injected');
			expect(b.dialogs.length === 0, 'dialogs opened: ' + b.dialogs.join('; '));
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
			console.log(`# ${list.length} hostile frames inert`);
		} finally {
			await b.close();
		}
	},

	// network FILE: loading and using the graph requests nothing but itself.
	async network(file) {
		const b = await open(file);
		try {
			await clickFrame(b.page, Math.min(1, (await frames(b.page)).length - 1));
			await b.page.evaluate(() => window.fg.search('a'));
			await b.page.keyboard.press('Escape');
			const others = b.requests.filter((u) => u.split('?')[0] !== b.url.split('?')[0]);
			expect(others.length === 0, 'requests made: ' + others.join(' '));
			console.log(`# ${b.requests.length} request(s), all for the SVG itself`);
		} finally {
			await b.close();
		}
	},

	// timing FILE [MAX_MS]: load time, and the time from a click on the
	// widest frame under the root until the next frame is painted.
	async timing(file, maxMs) {
		const b = await open(file);
		try {
			const n = await b.page.evaluate(() => window.fg.frames());
			const clickMs = await b.page.evaluate(() => new Promise((resolve) => {
				const gs = document.querySelectorAll('#frames > g');
				let best = 1, bw = -1;
				for (let i = 1; i < gs.length && i < 5000; i++) {
					if (+gs[i].getAttribute('data-d') === 1 && +gs[i].getAttribute('data-w') > bw) {
						bw = +gs[i].getAttribute('data-w');
						best = i;
					}
				}
				const t0 = performance.now();
				gs[best].querySelector('rect').dispatchEvent(new MouseEvent('click', { bubbles: true }));
				document.documentElement.getBoundingClientRect();
				requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
			}));
			const total = b.loadMs + clickMs;
			console.log(`# ${n} frames: load ${b.loadMs} ms, click ${clickMs.toFixed(0)} ms, total ${total.toFixed(0)} ms`);
			if (maxMs) expect(total < +maxMs, `load + click took ${total.toFixed(0)} ms, limit ${maxMs}`);
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
		} finally {
			await b.close();
		}
	},

	// legend FILE: every frame whose name starts with k_, j_, i_, w_ or u_
	// (kernel, JIT, inlined, waker, user) is drawn nearer, in RGB, to its
	// kind's legend swatch than to any other, as a reader would match them.
	async legend(file) {
		const b = await open(file);
		try {
			const drawn = await b.page.evaluate(() => {
				const rgb = (el) => getComputedStyle(el).fill.match(/\d+/g).map(Number);
				const sw = {};
				document.querySelectorAll('#legend rect').forEach((r) => {
					sw[r.nextElementSibling.textContent] = rgb(r);
				});
				const frames = Array.from(document.querySelectorAll('#frames > g')).map((g) => ({
					name: g.querySelector('title').textContent, fill: rgb(g.querySelector('rect')),
				}));
				return { sw, frames };
			});
			const kinds = { k_: 'kernel', j_: 'JIT', i_: 'inlined', w_: 'waker', u_: 'user' };
			const dist = (a, c) => Math.hypot(a[0] - c[0], a[1] - c[1], a[2] - c[2]);
			let n = 0;
			for (const f of drawn.frames) {
				const kind = kinds[f.name.substring(0, 2)];
				if (!kind) continue;
				if (!expect(drawn.sw[kind], `no legend entry for ${kind}`)) return;
				n++;
				const own = dist(f.fill, drawn.sw[kind]);
				for (const [k, c] of Object.entries(drawn.sw)) {
					if (k !== kind)
						expect(own < dist(f.fill, c),
							`${f.name}: rgb(${f.fill}) is nearer the ${k} swatch rgb(${c}) than its own ${kind} rgb(${drawn.sw[kind]})`);
				}
			}
			console.log(`# ${n} frames against ${Object.keys(drawn.sw).join(', ')}`);
			expect(n >= 20, 'too few frames checked');
		} finally {
			await b.close();
		}
	},

	// tall FILE [inverted]: a graph taller than the window opens on its
	// frames (a flame graph's root at the bottom of the window; an icicle's
	// at the top, unscrolled), the title, the Search button and the details
	// line stay in view, unhidden, wherever the page is scrolled.
	async tall(file, inverted) {
		const b = await open(file);
		try {
			// (The details line holds a space until a frame is hovered:
			// it is given a letter to be measured.)
			const inView = async (id) => {
				const r = await b.page.evaluate((id) => {
					const el = document.getElementById(id), text = el.textContent;
					if (!text.trim()) el.textContent = 'x';
					const q = el.getBoundingClientRect();
					// On top, too: where its glyphs are hit, no frame is
					// painted over them.
					const frames = document.getElementById('frames');
					let hits = 0, under = null;
					for (let k = 1; k < 10; k++) {
						const at = document.elementsFromPoint(q.left + (q.right - q.left) * k / 10, (q.top + q.bottom) / 2);
						const i = at.findIndex((e) => e === el || el.contains(e));
						if (i < 0) continue;
						hits++;
						const over = at.slice(0, i).find((e) => frames.contains(e));
						if (over) under = over.tagName;
					}
					el.textContent = text;
					return { seen: q.height > 0 && q.top >= 0 && q.bottom <= window.innerHeight,
						top: hits > 0 && !under, hit: under || (hits ? '' : 'nothing, not hit') };
				}, id);
				if (r.seen && !r.top) console.log(`# ${id} is under ${r.hit}`);
				return r.seen && r.top;
			};
			const v = await b.page.evaluate(() => {
				const root = document.querySelector('#frames > g[data-d="0"] rect').getBoundingClientRect();
				return { scrollY: window.scrollY, vh: window.innerHeight,
					H: document.documentElement.getBoundingClientRect().height,
					rootTop: root.top, rootBottom: root.bottom };
			});
			console.log(`# page ${v.H.toFixed(0)} px, window ${v.vh} px, scrolled to ${v.scrollY}, root frame at ${v.rootTop.toFixed(0)}-${v.rootBottom.toFixed(0)}`);
			expect(v.H > 2 * v.vh, 'the graph is not taller than the window');
			expect(v.rootTop >= 0 && v.rootBottom <= v.vh, 'the root frame is not in view on load');
			// The pinned header and footer hide no frame in the window but
			// those under their own margins: each frame row's middle, down
			// the window, is the frame's.
			const covered = await b.page.evaluate(() => {
				const out = [];
				for (const r of document.querySelectorAll('#frames > g > rect')) {
					const q = r.getBoundingClientRect(), y = (q.top + q.bottom) / 2, x = (q.left + q.right) / 2;
					if (q.width < 4 || y < 60 || y > window.innerHeight - 60) continue;
					const hit = document.elementFromPoint(x, y);
					if (hit !== r && !(hit && r.parentNode.contains(hit)))
						out.push(`${r.parentNode.querySelector('title').textContent} under ${hit ? hit.parentNode.id || hit.tagName : 'nothing'}`);
				}
				return out;
			});
			expect(covered.length === 0, 'frames covered: ' + covered.slice(0, 3).join('; '));
			if (inverted) expect(v.scrollY === 0, 'an icicle graph was scrolled');
			else expect(v.scrollY > 0, 'a flame graph did not scroll to its root');
			expect(await inView('title'), 'the title is not in view on load');
			expect(await inView('search'), 'the Search button is not in view on load');
			expect(await inView('details'), 'the details line is not in view on load');
			for (const y of [0, Math.floor(v.H / 2)]) {
				await b.page.evaluate((y) => window.scrollTo(0, y), y);
				await b.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
				expect(await inView('title'), `the title is not in view scrolled to ${y}`);
				expect(await inView('search'), `the Search button is not in view scrolled to ${y}`);
				expect(await inView('details'), `the details line is not in view scrolled to ${y}`);
			}
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
		} finally {
			await b.close();
		}
	},

	// The graph drawn for a range of a timed profile (FILE?t=A-B, or a drag
	// over the heatmap from cell C0,R0 to C1,R1) is the graph prof-svg draws
	// of that range's stacks alone (REFERENCE.svg): the same frames, at the
	// same places, with the same titles, labels and colours; a search in it
	// finds the same share.
	// NAMEs after REGEX: +NAME must be among the frames drawn, -NAME not.
	// HOW may be several ranges, T1;T2;...: the first is opened, and each
	// later one drawn in the same page after a zoom in the one before, so
	// that the last is drawn on elements earlier ranges and the zoom wrote.
	async range(file, how, reference, regex, ...names) {
		// The graphs' heights differ (a heatmap above one): y from the root's.
		// A range's titles are written when asked for (a hover asks).  A
		// frame too narrow for a label may have no text element.
		const frames = () => Array.from({ length: window.fg.frames() }, (_, i) => window.fg.element(i)).map((g, i, all) =>
			[window.fg.frame(i)[2], window.fg.frame(i)[0].toPrecision(12),
				window.fg.frame(i)[1].toPrecision(12), window.fg.title(i),
				g.querySelector('text') ? g.querySelector('text').textContent : '',
				g.querySelector('rect').getAttribute('fill'), g.querySelector('rect').getAttribute('x'),
				(+g.querySelector('rect').getAttribute('y') - +all[0].querySelector('rect').getAttribute('y')).toFixed(1)].join(' '));
		const chain = how.split(';');
		how = chain.shift();
		const ref = await open(reference);
		let want, wantPct = null;
		try {
			want = await ref.page.evaluate(frames);
			if (regex && regex !== '-') wantPct = await ref.page.evaluate((r) => { window.fg.search(r); return window.fgMatched; }, regex);
		} finally {
			await ref.close();
		}
		const drag = how.split(',');
		const b = await open(file, drag.length === 4 ? '' : '?t=' + how);
		try {
			if (drag.length === 4) {
				const at = await b.page.evaluate((d) => {
					const H = window.fgConf.heat, m = document.getElementById('heatmap').getScreenCTM();
					const pt = (c, r) => ({ x: m.a * (H.x + (c + 0.5) * H.cw) + m.e, y: m.d * (H.y + (r + 0.5) * H.rh) + m.f });
					return [pt(+d[0], +d[1]), pt(+d[2], +d[3])];
				}, drag);
				await b.page.mouse.move(at[0].x, at[0].y);
				await b.page.mouse.down();
				await b.page.mouse.move((at[0].x + at[1].x) / 2, (at[0].y + at[1].y) / 2);
				await b.page.mouse.move(at[1].x, at[1].y);
				await b.page.mouse.up();
			}
			for (const t of chain) {
				const z = await b.page.evaluate((t) => {
					let best = -1, w = -1;
					for (let i = 0; i < window.fg.frames(); i++) {
						const f = window.fg.frame(i);
						if (f[2] === 1 && f[1] > w) { w = f[1]; best = i; }
					}
					const title = best >= 0 ? window.fg.title(best) : '';
					if (best >= 0) window.fg.zoom(best);
					const [a, c] = t.split('-').map(Number);
					window.fg.range(a, c);
					return title;
				}, t);
				console.log(`# zoomed on ${z}, then drew ${t}`);
			}
			const left = await b.page.evaluate(() => {
				const F = document.getElementById('frames');
				return { children: F.children.length, frames: window.fg.frames(),
					parents: F.querySelectorAll('.parent').length, moved: F.querySelectorAll('text[transform]').length };
			});
			expect(left.children === left.frames, `${left.children} elements in the graph for ${left.frames} frames`);
			expect(left.parents === 0 && left.moved === 0,
				`a zoom left ${left.parents} frames dimmed and ${left.moved} labels moved`);
			const got = await b.page.evaluate(frames);
			// The page has no room for frames deeper than its whole graph's
			// deepest (docs/FORMATS.md section 4): the reference's are left
			// out of the comparison, and counted.
			const depthmax = await b.page.evaluate(() => window.fgConf.depthmax);
			const deeper = want.filter((l) => +l.split(' ')[0] > depthmax).length;
			want = want.filter((l) => +l.split(' ')[0] <= depthmax);
			if (deeper) console.log(`# ${deeper} frames of the reference are deeper than the page's ${depthmax} levels`);
			const v = await b.page.evaluate(() => ({ search: location.search,
				shown: document.getElementById('heat-range').textContent,
				outline: document.getElementById('heat-sel').getAttribute('d') }));
			console.log(`# ${got.length} frames drawn for ${v.search}: "${v.shown}"`);
			expect(/[?&]t=\d/.test(v.search), 'the range is not in the URL');
			expect(v.outline && v.outline.length > 0, 'the range is not outlined on the heatmap');
			expect(got.length === want.length, `${got.length} frames drawn, the reference has ${want.length}`);
			let diff = 0;
			for (let i = 0; i < Math.max(got.length, want.length); i++)
				if (got[i] !== want[i] && diff++ < 3) console.log(`# frame ${i}:\n#   got  ${got[i]}\n#   want ${want[i]}`);
			expect(diff === 0, `${diff} frames differ from the reference`);
			for (const line of got.slice(0, 40)) console.log('# ' + line);
			const drawn = new Set(got.map((l) => l.split(' ')[3]));
			for (const n of names)
				expect(drawn.has(n.substring(1)) === (n[0] === '+'),
					`${n.substring(1)} is ${n[0] === '+' ? 'not ' : ''}drawn in the range`);
			if (regex && regex !== '-') {
				const pct = await b.page.evaluate((r) => { window.fg.search(r); return window.fgMatched; }, regex);
				console.log(`# search ${regex}: ${pct.toFixed(2)}% (reference ${wantPct.toFixed(2)}%)`);
				expect(Math.abs(pct - wantPct) < 1e-9, 'the search share differs from the reference');
			}
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
		} finally {
			await b.close();
		}
	},

	// In a range (?t=HOW), a click on the frame NAME zooms it; the URL then
	// holds both, and opening it shows the same range, zoomed the same.
	async rangeZoom(file, how, name) {
		const b = await open(file, '?t=' + how);
		let url;
		try {
			const i = await b.page.evaluate((n) => {
				for (let k = 0; k < window.fg.frames(); k++)
					if (window.fg.title(k).startsWith(n + ' (')) return k;
				return -1;
			}, name);
			expect(i >= 0, `${name} is not drawn in the range`);
			await clickFrame(b.page, await b.page.evaluate((i) =>
				Array.prototype.indexOf.call(document.getElementById('frames').children, window.fg.element(i)), i));
			const v = await b.page.evaluate(() => ({ search: location.search, zoomed: window.fg.zoomed(),
				range: document.getElementById('heat-range').textContent }));
			console.log(`# after the click: ${v.search}, zoomed ${v.zoomed}, "${v.range}"`);
			expect(v.zoomed === i, 'the click did not zoom the frame');
			expect(/t=/.test(v.search) && /x=/.test(v.search), 'the URL lacks the range or the zoom');
			url = v.search;
			expect(b.errors.length === 0, 'page errors: ' + b.errors.join('; '));
		} finally {
			await b.close();
		}
		const c = await open(file, url);
		try {
			const v = await c.page.evaluate(() => ({ zoomed: window.fg.zoomed(),
				title: window.fg.zoomed() >= 0 ? window.fg.title(window.fg.zoomed()) : '',
				range: document.getElementById('heat-range').textContent }));
			console.log(`# reopened ${url}: zoomed on ${v.title}, "${v.range}"`);
			expect(v.title.startsWith(name + ' ('), 'the link did not zoom the same frame');
			expect(/\u2013/.test(v.range), 'the link did not draw the range');
			expect(c.errors.length === 0, 'page errors: ' + c.errors.join('; '));
		} finally {
			await c.close();
		}
	},
};

(async () => {
	const [name, file, ...args] = process.argv.slice(2);
	if (!checks[name] || !file) {
		console.error('usage: check.js ' + Object.keys(checks).join('|') + ' FILE.svg [ARGS...]');
		process.exit(2);
	}
	try {
		await checks[name](file, ...args);
	} catch (e) {
		fail(e.stack || String(e));
	}
})();
