#!/usr/bin/env node
// How fast flame graph SVGs open and answer in Debian's chromium, driven by
// playwright-core: prof-svg's and flamegraph.pl's, measured the same way.
//
// Usage: node bench.js [--runs N] [--search REGEX]... [--range A-B]... LABEL=FILE.svg...
// The first FILE is the reference the others' ratios are taken against.
//
// Each run opens every file once, in turn, each in a fresh browser context,
// so that the files share whatever the machine is doing.  For each file it
// times, in milliseconds:
//   load   navigation start until the load event has run its handlers
//          (flamegraph.pl initialises in one) and the next frame is painted;
//   click  a click on the widest frame one level above the root, until the
//          zoomed view is painted;
//   reset  a click on Reset Zoom, until the whole graph is painted again;
//   search a click on Search, answered with REGEX, until the highlighted
//          view is painted (both scripts ask with window.prompt, which is
//          replaced by one that answers at once); then a second click
//          clears the search.  Once for each REGEX given.
//   range  in a timed profile's SVG, a drag over its heatmap from second A
//          to second B, until the graph of that range is painted.  Once
//          for each A-B given, in turn.
// Every action is a DOM event dispatched to the element its own handlers
// listen on, and "painted" is a requestAnimationFrame callback followed by
// a task: by then the frame's style, layout and paint have run.
'use strict';
const path = require('path');
const fs = require('fs');
const { chromium } = require('playwright-core');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

// Runs before any of the document's scripts: the load timestamp is taken
// after every load handler, in a task after the next frame.
function markLoad() {
	window.addEventListener('load', () => requestAnimationFrame(() => setTimeout(() => {
		window.benchLoaded = performance.now();
	}, 0)));
}

// In the page: the frame a user would click first, kept for the timing.
function pickTarget() {
	const gs = document.getElementById('frames').children;
	let root = null, rootW = -1;
	const rects = [];
	for (const g of gs) {
		const r = g.querySelector('rect');
		if (!r) continue;
		const w = +r.getAttribute('width');
		rects.push({ g, r, w, y: +r.getAttribute('y') });
		if (w > rootW) { rootW = w; root = rects[rects.length - 1]; }
	}
	// One level above the root is the nearest row to it (in an icicle
	// graph, below it).
	let gap = Infinity;
	for (const f of rects)
		if (f.y !== root.y) gap = Math.min(gap, Math.abs(f.y - root.y));
	let best = null;
	for (const f of rects)
		if (Math.abs(f.y - root.y) === gap && (!best || f.w > best.w)) best = f;
	window.benchTarget = best.r;
	window.benchFull = root.r.getBoundingClientRect().width;
	return { frames: rects.length, elements: document.getElementsByTagName('*').length,
		target: best.g.querySelector('title').textContent };
}

// In the page: dispatch a click on the element, resolve with the time until
// the frame after it has been painted.
function timeClick(what) {
	const el = what === 'target' ? window.benchTarget : document.getElementById(what);
	return new Promise((resolve) => {
		const t0 = performance.now();
		el.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, view: window }));
		requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
	});
}

// In the page: a drag over the heatmap of a timed profile from the cell of
// second A to that of second B (its row's start), resolved with the time
// until the redrawn graph is painted; null for a graph without one.
function timeRange(range) {
	const H = window.fgConf.heat, heat = document.getElementById('heatmap');
	if (!H) return null;
	const [a, b] = range.split('-').map(Number), m = heat.getScreenCTM();
	const at = (t) => {
		const c = Math.floor(t), r = Math.floor((t - c) * 1e9 / H.rowNs);
		return { clientX: m.a * (H.x + (c + 0.5) * H.cw) + m.e, clientY: m.d * (H.y + (r + 0.5) * H.rh) + m.f,
			bubbles: true, cancelable: true, view: window };
	};
	return new Promise((resolve) => {
		const t0 = performance.now();
		heat.dispatchEvent(new MouseEvent('mousedown', at(a)));
		window.dispatchEvent(new MouseEvent('mouseup', at(b - 1e-6)));
		requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
	});
}

// In the page: what the last action left on screen, to check that it did
// what was timed.
function observe() {
	const t = window.benchTarget.getBoundingClientRect();
	let matched = 0;
	for (const g of document.getElementById('frames').children) {
		const r = g.querySelector('rect');
		if (g.classList.contains('match') || (r && r.getAttribute('fill') === 'rgb(230,0,230)')) matched++;
	}
	return {
		zoomed: Math.abs(t.width - window.benchFull) < 0.5,
		parents: document.querySelectorAll('#frames > .parent').length,
		matched, matchedText: document.getElementById('matched').textContent.trim(),
	};
}

async function measure(browser, file, regexes, ranges) {
	const context = await browser.newContext();
	try {
		await context.addInitScript(markLoad);
		const page = await context.newPage();
		const errors = [];
		page.on('pageerror', (e) => errors.push(String(e)));
		await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
		await page.waitForFunction(() => window.benchLoaded !== undefined);
		const r = { load: await page.evaluate(() => window.benchLoaded) };
		const info = await page.evaluate(pickTarget);
		const bad = [];
		r.click = await page.evaluate(timeClick, 'target');
		let seen = await page.evaluate(observe);
		if (!seen.zoomed || seen.parents < 1) bad.push('the click did not zoom');
		r.reset = await page.evaluate(timeClick, 'unzoom');
		seen = await page.evaluate(observe);
		if (seen.zoomed || seen.parents) bad.push('Reset Zoom did not reset');
		const matchedBy = [];
		for (const re of regexes) {
			await page.evaluate((re) => { window.prompt = () => re; }, re);
			r['search ' + re] = await page.evaluate(timeClick, 'search');
			seen = await page.evaluate(observe);
			if (!seen.matched || !seen.matchedText.startsWith('Matched:')) bad.push(`the search for ${re} matched nothing`);
			matchedBy.push(`${seen.matched} frames, "${seen.matchedText}"`);
			await page.evaluate(timeClick, 'search');
			if ((await page.evaluate(observe)).matched) bad.push(`the search for ${re} was not cleared`);
		}
		for (const range of ranges) {
			r['range ' + range] = await page.evaluate(timeRange, range);
			if (r['range ' + range] === null) continue;
			const said = await page.evaluate(() => document.getElementById('heat-range').textContent);
			if (!/\u2013/.test(said)) bad.push(`the drag over ${range} drew no range`);
			info.range = said;
		}
		bad.push(...errors);
		return { r, info, matchedBy, bad };
	} finally {
		await context.close();
	}
}

function median(a) {
	const s = a.slice().sort((x, y) => x - y), m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

(async () => {
	const argv = process.argv.slice(2), files = [];
	let runs = 5;
	const regexes = [], ranges = [];
	while (argv.length) {
		const a = argv.shift();
		if (a === '--runs') runs = +argv.shift();
		else if (a === '--range') ranges.push(argv.shift());
		else if (a === '--search') regexes.push(argv.shift());
		else if (a.includes('=')) files.push({ label: a.substring(0, a.indexOf('=')), file: a.substring(a.indexOf('=') + 1) });
		else { console.error('usage: bench.js [--runs N] [--search REGEX] LABEL=FILE.svg...'); process.exit(2); }
	}
	if (!regexes.length) regexes.push('std::');
	if (!files.length || !(runs > 0)) { console.error('usage: bench.js [--runs N] [--search REGEX] LABEL=FILE.svg...'); process.exit(2); }
	const browser = await chromium.launch({
		executablePath: CHROMIUM, headless: true,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
	const keys = ['load', 'click', 'reset'].concat(regexes.map((re) => 'search ' + re),
		ranges.map((range) => 'range ' + range));
	try {
		for (const f of files) { f.times = {}; keys.forEach((k) => { f.times[k] = []; }); }
		for (let run = 0; run < runs; run++) {
			// Alternate the order, so that neither file always goes first.
			const order = run % 2 ? files.slice().reverse() : files;
			for (const f of order) {
				const m = await measure(browser, f.file, regexes, ranges);
				if (m.bad.length) {
					console.log(`# ${f.label}: ${m.bad.join('; ')}`);
					process.exitCode = 1;
				}
				keys.forEach((k) => f.times[k].push(m.r[k]));
				f.info = m.info;
				f.matchedBy = m.matchedBy;
			}
		}
	} finally {
		await browser.close();
	}
	const w = 16, pad = (s, n) => String(s).padStart(n || w);
	const ref = files[0];
	console.log(`# ${runs} runs each, median (best) in ms; ratio: ${ref.label}'s median / the file's median`);
	console.log(''.padEnd(18) + files.map((f) => pad(f.label)).join('') +
		files.slice(1).map((f) => pad('vs ' + f.label, 18)).join(''));
	for (const k of keys) {
		// A range is timed only where there is a heatmap.
		const t = (f) => f.times[k].filter((v) => v !== null);
		const cells = files.map((f) => pad(t(f).length ? `${median(t(f)).toFixed(0)} (${Math.min(...t(f)).toFixed(0)})` : '-'));
		const ratios = files.slice(1).map((f) => pad(t(f).length && t(ref).length ?
			(median(t(ref)) / median(t(f))).toFixed(1) + 'x' : '-', 18));
		console.log(k.padEnd(18) + cells.join('') + ratios.join(''));
	}
	const row = (name, get) => console.log(name.padEnd(18) + files.map((f) => pad(get(f))).join(''));
	row('size kB', (f) => (fs.statSync(f.file).size / 1000).toFixed(0));
	row('frames', (f) => f.info.frames);
	row('elements', (f) => f.info.elements);
	console.log(`# clicked: ${files.map((f) => f.label + ' "' + f.info.target + '"').join(', ')}`);
	if (ranges.length) console.log(`# last range: ${files.map((f) => f.label + ' "' + (f.info.range || '-') + '"').join(', ')}`);
	regexes.forEach((re, k) => console.log(`# search /${re}/: ` +
		files.map((f) => `${f.label} ${f.matchedBy[k]}`).join(', ')));
})().catch((e) => { console.log('# FAIL: ' + (e.stack || e)); process.exitCode = 1; });
