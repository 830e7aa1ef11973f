(function () {
"use strict";
var C = window.fgConf, doc = document;
var framesG = doc.getElementById("frames");
var details = doc.getElementById("details"), unzoomBtn = doc.getElementById("unzoom");
var searchBtn = doc.getElementById("search"), icBtn = doc.getElementById("ignorecase");
var matchedTxt = doc.getElementById("matched"), nametype = details.getAttribute("data-nametype") || "";
var nodes = [], fx, fw, fd, names = [], labels = [], classes = [], state, matched, N = 0;
var inited = false, hasDataName = false, warmed = 0;
var zoomed = -1, term = null, termFromLink = false, ignoreCase = false, matchCount = 0;
var charW = C.fontsize * C.fontwidth, full = C.width - 2 * C.xpad;

function init() {
	var kids = framesG.children, i, g;
	for (i = 0; i < kids.length; i++)
		if (kids[i].tagName === "g") nodes.push(kids[i]);
	N = nodes.length;
	fx = new Float64Array(N); fw = new Float64Array(N); fd = new Int32Array(N);
	state = new Uint8Array(N);
	matched = new Uint8Array(N);
	for (i = 0; i < N; i++) {
		g = nodes[i];
		fx[i] = +g.getAttribute("data-x");
		fw[i] = +g.getAttribute("data-w");
		fd[i] = +g.getAttribute("data-d");
		classes[i] = g.getAttribute("class") || "";
	}
	hasDataName = framesG.querySelector("g[data-name]") !== null;
}

/*
 * Nothing above is needed to paint the graph, only to answer the user:
 * it runs when the browser is idle after the first paint, or at the first
 * interaction if that comes sooner.
 */
function ready() {
	if (inited) return;
	inited = true;
	init();
}

/* The first search would otherwise read every frame's title; the names
 * are read ahead, a slice at a time, while the browser has nothing to do. */
function warm(deadline) {
	ready();
	for (var n = 0; warmed < N && (deadline ? deadline.timeRemaining() > 1 : n < 1000); n++)
		nameOf(warmed++);
	if (warmed < N) idle(warm);
}

function idle(f) {
	if (window.requestIdleCallback) window.requestIdleCallback(f, { timeout: 2000 });
	else window.setTimeout(f, 0);
}

function titleOf(i) {
	var t = nodes[i].firstElementChild;
	return t && t.tagName === "title" ? t.textContent : "";
}

function nameOf(i) {
	var n = names[i];
	if (n === undefined) {
		n = hasDataName ? nodes[i].getAttribute("data-name") : null;
		if (n === null) {
			n = titleOf(i);
			var k = n.lastIndexOf(" (");
			if (k >= 0) n = n.substring(0, k);
		}
		names[i] = n;
	}
	return n;
}

/*
 * A time of ns nanoseconds, as prof-svg writes the titles' (time_text.c,
 * the same computation): 3 significant digits without trailing zeros, in
 * the unit that keeps 1 to 3 digits before the point, or whole seconds.
 */
function fmtTime(ns) {
	var units = ["ns", "us", "ms", "s"], scale = [1, 10, 100], v = ns, n = 0, u, d;
	if (!(v > 0)) return "0 s";
	for (u = 0; u < 4; u++, v /= 1000) {
		for (d = 2; d >= 0; d--) {
			n = Math.round(v * scale[d]);
			if (n >= 1000) continue;
			var whole = Math.floor(n / scale[d]), frac = n % scale[d];
			for (; d && frac % 10 === 0; d--) frac /= 10;
			return whole + (d ? "." + String(scale[d] + frac).substring(1) : "") + " " + units[u];
		}
	}
	return n.toFixed(0) + " s";
}

function fit(name, w) {
	var chars = Math.floor(w / charW);
	if (chars < 3) return "";
	if (name.length <= chars) return name;
	return name.substring(0, chars - 2) + "..";
}

/*
 * Zooming moves no frame: one transform on #frames scales the x axis, and
 * the clip around it hides what falls outside.  Only the labels are
 * rewritten (at most a few thousand can be wide enough to hold one), each
 * with a counter-transform so that its glyphs keep their size.  A graph
 * of many frames has few labels: a frame's text element, its label and
 * its transform are looked up only when it may have one.
 */
var texts = [], textTf = [];
var wpt = full / C.total; /* pixels per sample */
var minLabel = 3 * charW;

function textOf(i) {
	var t = texts[i];
	if (t === undefined) {
		t = nodes[i].lastElementChild;
		if (t.tagName === "a") t = t.lastElementChild;
		texts[i] = t;
	}
	return t;
}

/* prof-svg labels a frame only if it is 3 characters wide (xml_put_label):
 * a narrower one is known to be blank without asking the DOM. */
function labelOf(i) {
	var l = labels[i];
	if (l === undefined)
		l = labels[i] = fw[i] * wpt < minLabel * (1 - 1e-6) ? "" : textOf(i).textContent;
	return l;
}

function setLabel(i, label) {
	if (labelOf(i) !== label) {
		textOf(i).textContent = label;
		labels[i] = label;
	}
}

/* A frame's class is written whole: setAttribute is several times
 * quicker than classList, which counts when a search marks every frame. */
function setClass(i) {
	nodes[i].setAttribute("class", classes[i] + (state[i] ? " parent" : "") + (matched[i] ? " match" : ""));
}

/* state: 0 shown, 1 dimmed ancestor */
function setState(i, s) {
	if (state[i] === s) return;
	state[i] = s;
	setClass(i);
}

function zoom(z) {
	ready();
	if (z < 0 || z >= N) return;
	var x0 = fx[z], w0 = fw[z], d0 = fd[z], eps = w0 * 1e-9;
	var s = C.total / w0, tx = C.xpad - s * (C.xpad + x0 * wpt);
	var lo = C.xpad, hi = C.width - C.xpad, j;
	if (fd[z] === 0) { s = 1; tx = 0; }
	if (s === 1 && tx === 0) framesG.removeAttribute("transform");
	else framesG.setAttribute("transform", "matrix(" + s + " 0 0 1 " + tx + " 0)");
	for (j = 0; j < N; j++) {
		var x = fx[j], w = fw[j], anc = false, inView;
		if (fd[j] < d0) {
			anc = x <= x0 + eps && x + w >= x0 + w0 - eps;
			inView = anc;
		} else {
			inView = x >= x0 - eps && x + w <= x0 + w0 + eps;
		}
		setState(j, anc ? 1 : 0);
		var ux = C.xpad + x * wpt, sx = tx + s * ux, sw = s * w * wpt;
		var left = Math.max(sx, lo), width = Math.min(sx + sw, hi) - left;
		if (!inView || width < minLabel) {
			setLabel(j, "");
			continue;
		}
		setLabel(j, fit(nameOf(j), width));
		/* The label's x attribute is ux + 3; put it at left + 3 on screen. */
		var tf = null;
		if (s !== 1 || tx !== 0) {
			var e = (left - tx - ux) / s;
			tf = "matrix(" + (1 / s) + " 0 0 1 " + e + " 0)";
		}
		if (tf !== (textTf[j] || null)) {
			if (tf === null) textOf(j).removeAttribute("transform");
			else textOf(j).setAttribute("transform", tf);
			textTf[j] = tf;
		}
	}
	zoomed = fd[z] === 0 ? -1 : z;
	unzoomBtn.classList.toggle("hide", zoomed < 0);
	if (term !== null) search(term, termFromLink);
	saveState();
}

function unzoom() {
	ready();
	if (N) zoom(0);
}

function view() {
	var z = zoomed < 0 ? 0 : zoomed;
	return N ? [fx[z], fw[z]] : [0, 1];
}

/*
 * A pattern that came with a link is someone else's choice, and
 * JavaScript's regular expressions backtrack: (a+)+$ or .?.?...#, on a
 * long name, would hang the viewer's tab.  Such a pattern is compiled
 * here into a Thompson NFA and run as a set of states, each instruction
 * taken at most once per character: time pattern x name, whatever the
 * pattern.  The subset is what searches use: literals and escapes, ., [...],
 * ^ $ \b \B, groups, |, * + ? {n,m}; counts are unrolled, up to LINK_MAX
 * instructions.  For anything else (backreferences, lookaround, a longer
 * program) linkRegex returns null, and the pattern is matched as text.
 */
var LINK_MAX = 500;
var ESC = { d: [48, 57], s: [9, 13, 32, 32, 160, 160, 0x1680, 0x1680, 0x2000, 0x200a,
	0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff],
	w: [48, 57, 65, 90, 95, 95, 97, 122] };
var QUANT = /(?:([*+?])|\{(\d+)(?:(,)(\d*))?\})\??/y;

/* The complement of the sorted ranges r among the UTF-16 code units, which
 * are what a pattern without the u flag matches. */
function comp(r) {
	var o = [], lo = 0, k;
	for (k = 0; k < r.length; k += 2) {
		if (r[k] > lo) o.push(lo, r[k] - 1);
		lo = r[k + 1] + 1;
	}
	if (lo <= 0xffff) o.push(lo, 0xffff);
	return o;
}

function set(r, neg) {
	return { op: "set", r: r, neg: neg };
}

function linkRegex(t, ic) {
	var i = 0, prog = [];
	function no() { throw new Error("outside the subset"); }
	function lit(c) { return set([c, c], false); }
	function esc(inClass) {
		var c = t.charAt(i++), k, m;
		if (ESC[c.toLowerCase()]) {
			k = ESC[c.toLowerCase()];
			return set(c === c.toLowerCase() ? k : comp(k), false);
		}
		if (c === "b" || c === "B") return inClass ? c === "b" ? lit(8) : no() : { op: "as", as: c };
		if ((k = "fnrtv".indexOf(c)) >= 0) return lit([12, 10, 13, 9, 11][k]);
		if (c === "x" || c === "u") {
			k = c === "x" ? 2 : 4;
			m = t.substring(i, i + k);
			if (m.length < k || /[^0-9A-Fa-f]/.test(m)) no();
			i += k;
			return lit(parseInt(m, 16));
		}
		if (c === "0" && !/\d/.test(t.charAt(i))) return lit(0);
		/* Backreferences, octal, \c, \k, \p, and what may mean more later. */
		if (c === "" || /[A-Za-z0-9]/.test(c)) no();
		return lit(c.charCodeAt(0));
	}
	/* A class member's ranges (\B, the only assertion, is no()). */
	function member() {
		if (i >= t.length) no();
		if (t.charAt(i) !== "\\") return lit(t.charCodeAt(i++)).r;
		i++;
		return esc(true).r;
	}
	function cls() {
		var neg = t.charAt(i) === "^", r = [], a, b;
		if (neg) i++;
		while (t.charAt(i) !== "]") {
			a = member();
			if (t.charAt(i) === "-" && i + 1 < t.length && t.charAt(i + 1) !== "]") {
				i++;
				b = member();
				/* Without the u flag, [\d-z] is \d, - and z. */
				if (a.length > 2 || a[0] !== a[1] || b.length > 2 || b[0] !== b[1]) a = a.concat(45, 45, b);
				else if (a[0] <= b[0]) a = [a[0], b[0]];
				else no();
			}
			r.push.apply(r, a);
		}
		i++;
		return set(r, neg);
	}
	function atom() {
		var c = t.charAt(i++), x;
		if (c === "(") {
			if (t.charAt(i) === "?") {
				if (t.charAt(i + 1) === ":") i += 2;
				else no();
			}
			x = alt();
			if (t.charAt(i++) !== ")") no();
			return x;
		}
		if (c === "[") return cls();
		if (c === ".") return set([10, 10, 13, 13, 0x2028, 0x2029], true); /* not a line end */
		if (c === "^" || c === "$") return { op: "as", as: c };
		if (c === "\\") return esc(false);
		QUANT.lastIndex = i - 1;
		if ("*+?)|".indexOf(c) >= 0 || c === "{" && QUANT.test(t)) no();
		return lit(c.charCodeAt(0));
	}
	function cat() {
		var a = [], x, m;
		while (i < t.length && t.charAt(i) !== "|" && t.charAt(i) !== ")") {
			x = atom();
			QUANT.lastIndex = i;
			if ((m = QUANT.exec(t))) {
				if (x.op === "as") no();
				i = QUANT.lastIndex;
				x = { op: "rep", x: x, min: m[1] ? +(m[1] === "+") : +m[2],
					max: m[1] ? m[1] === "?" ? 1 : Infinity : m[3] ? m[4] === "" ? Infinity : +m[4] : +m[2] };
				if (x.min > x.max) no();
			}
			a.push(x);
		}
		return { op: "cat", a: a };
	}
	function alt() {
		var a = [cat()];
		while (t.charAt(i) === "|") {
			i++;
			a.push(cat());
		}
		return a.length > 1 ? { op: "alt", a: a } : a[0];
	}
	/* Jumps and splits are { x } and { x, y }; a split tries both. */
	function emit(x) {
		var k, p, opt, ends = [];
		if (prog.length > LINK_MAX) no();
		if (x.op === "cat") {
			for (k = 0; k < x.a.length; k++) emit(x.a[k]);
		} else if (x.op === "alt") {
			for (k = 0; k < x.a.length; k++) {
				if (k === x.a.length - 1) {
					emit(x.a[k]);
					break;
				}
				p = prog.push({ op: "split", x: prog.length + 1 }) - 1;
				emit(x.a[k]);
				ends.push(prog.push({ op: "jmp" }) - 1);
				prog[p].y = prog.length;
			}
			for (k = 0; k < ends.length; k++) prog[ends[k]].x = prog.length;
		} else if (x.op === "rep") {
			/* x{2,4} is x x x? x?, x{2,} is x x x*.  Each pass adds
			 * to the program, which LINK_MAX bounds, unless the body is
			 * empty, and then its count makes no difference. */
			for (k = 0; k < x.max; k++) {
				p = prog.length;
				opt = k >= x.min;
				if (opt) prog.push({ op: "split", x: p + 1 });
				emit(x.x);
				if (prog.length === p + (opt ? 1 : 0)) {
					prog.length = p;
					return;
				}
				if (!opt) continue;
				if (x.max === Infinity) prog.push({ op: "jmp", x: p });
				prog[p].y = prog.length;
				if (x.max === Infinity) return;
			}
		} else {
			prog.push(x);
		}
	}
	try {
		if (t.length > LINK_MAX) no();
		emit(alt());
		if (i < t.length || prog.length > LINK_MAX) no();
	} catch (e) {
		return null;
	}
	prog.push({ op: "match" });
	return nfa(prog, ic);
}

/* ECMAScript's Canonicalize for /i without /u, for every code unit, and
 * the code units that fold to each of the few that others fold to. */
var canonT = null, foldsTo = {};

function caseTables() {
	var k, s, u;
	canonT = new Uint16Array(65536);
	for (k = 0; k < 65536; k++) {
		s = String.fromCharCode(k).toUpperCase();
		u = s.charCodeAt(0);
		canonT[k] = s.length === 1 && !(k >= 128 && u < 128) ? u : k;
	}
	for (k = 0; k < 65536; k++)
		if (canonT[k] !== k) (foldsTo[canonT[k]] = foldsTo[canonT[k]] || []).push(k);
}

function inRanges(r, c) {
	for (var k = 0; k < r.length; k += 2)
		if (c >= r[k] && c <= r[k + 1]) return true;
	return false;
}

/* A set matches c under /i when one of its members folds as c does. */
function hit(o, c, ic) {
	var f = inRanges(o.r, c), u, e, k;
	if (!f && ic) {
		if (!canonT) caseTables();
		u = canonT[c];
		f = canonT[u] === u && inRanges(o.r, u);
		for (e = foldsTo[u] || [], k = 0; !f && k < e.length; k++) f = inRanges(o.r, e[k]);
	}
	return f !== o.neg;
}

/*
 * The NFA run over a name as RegExp.test would, from every position at
 * once, kept in typed arrays: op, x, y per instruction, and for each set
 * its answer for every ASCII code unit.  mark[pc] === gen once pc is in
 * the states of the position being reached.  A name's answer is kept:
 * frames repeat names, and a zoom searches again.
 */
var OPS = { set: 0, split: 1, jmp: 2, match: 3, "^": 4, $: 5, b: 6, B: 7 };

function nfa(prog, ic) {
	var n = prog.length, op = new Uint8Array(n), x = new Int32Array(n), y = new Int32Array(n);
	var ascii = [], mark = new Float64Array(n), gen = 0, stack = new Int32Array(2 * n + 1);
	var cur = new Int32Array(n), next = new Int32Array(n), ncur, nnext, s = "", i = 0, pc, c, o;
	var memo = new Map();
	for (pc = 0; pc < n; pc++) {
		o = prog[pc];
		op[pc] = OPS[o.op === "as" ? o.as : o.op];
		x[pc] = o.x;
		y[pc] = o.y;
		if (o.op === "set" && !o.ascii) {
			o.ascii = new Uint8Array(128);
			for (c = 0; c < 128; c++) o.ascii[c] = hit(o, c, ic) ? 1 : 0;
		}
		ascii[pc] = o.ascii;
	}
	function word(k) {
		return k >= 0 && k < s.length && inRanges(ESC.w, s.charCodeAt(k));
	}
	/* Adds pc to next, following jumps, splits and assertions at i. */
	function add(pc) {
		var sp = 0, o;
		stack[sp++] = pc;
		while (sp) {
			pc = stack[--sp];
			if (mark[pc] === gen) continue;
			mark[pc] = gen;
			o = op[pc];
			if (o === 0) next[nnext++] = pc;
			else if (o === 1) {
				stack[sp++] = y[pc];
				stack[sp++] = x[pc];
			} else if (o === 2) stack[sp++] = x[pc];
			else if (o === 3) return true;
			else if (o === 4 ? i === 0 : o === 5 ? i === s.length : (word(i - 1) !== word(i)) === (o === 6))
				stack[sp++] = pc + 1;
		}
		return false;
	}
	function run() {
		var k, t;
		i = 0;
		gen++;
		nnext = 0;
		if (add(0)) return true;
		while (i < s.length) {
			t = cur;
			cur = next;
			next = t;
			ncur = nnext;
			nnext = 0;
			c = s.charCodeAt(i++);
			gen++;
			for (k = 0; k < ncur; k++) {
				pc = cur[k];
				if ((c < 128 ? ascii[pc][c] : hit(prog[pc], c, ic)) && add(pc + 1)) return true;
			}
			if (add(0)) return true;
		}
		return false;
	}
	return function (name) {
		var r = memo.get(name);
		if (r === undefined) {
			s = name;
			memo.set(name, r = run());
		}
		return r;
	};
}

function setMatch(j, m) {
	if (matched[j] === m) return;
	matched[j] = m;
	setClass(j);
}

var linked = null; /* the link's pattern, compiled, with its answers */

/* A pattern that came with the link keeps that origin when a zoom or the
 * case button searches again: only one the viewer typed runs as a RegExp. */
function search(t, fromLink) {
	ready();
	var re, test = null, j, v = view(), lo = v[0], hi = v[0] + v[1], flags = ignoreCase ? "i" : "";
	try {
		re = new RegExp(t, flags);
	} catch (e) {
		matchedTxt.textContent = "Invalid regular expression";
		return;
	}
	if (fromLink) {
		if (!linked || linked.t !== t || linked.ic !== ignoreCase)
			linked = { t: t, ic: ignoreCase, test: linkRegex(t, ignoreCase) };
		test = linked.test;
	}
	var asText = fromLink && !test;
	if (asText) re = new RegExp(t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), flags);
	if (!test) test = function (s) { return re.test(s); };
	term = t;
	termFromLink = !!fromLink;
	matchCount = 0;
	var a = new Float64Array(N), b = new Float64Array(N), hits = [];
	for (j = 0; j < N; j++) {
		var m = test(nameOf(j)) ? 1 : 0;
		setMatch(j, m);
		if (!m) continue;
		matchCount++;
		a[j] = Math.max(fx[j], lo);
		b[j] = Math.min(fx[j] + fw[j], hi);
		if (b[j] > a[j]) hits.push(j);
	}
	/* Nested matches (a match inside a matching ancestor) count once: the
	 * share is the length of the union of the matches' spans. */
	hits.sort(function (p, q) { return a[p] - a[q]; });
	var sum = 0, end = -Infinity;
	for (j = 0; j < hits.length; j++) {
		var h = hits[j];
		if (a[h] >= end) { sum += b[h] - a[h]; end = b[h]; }
		else if (b[h] > end) { sum += b[h] - end; end = b[h]; }
	}
	var pct = v[1] > 0 ? 100 * sum / v[1] : 0;
	searchBtn.classList.add("show");
	searchBtn.textContent = "Reset Search";
	/* Frames too narrow to be drawn are not in the page: had they been
	 * searched, the share could only be larger. */
	matchedTxt.textContent = "Matched: " + (C.omitted ? "\u2265" : "") + pct.toFixed(2) + "%" +
		(C.ns ? " (" + fmtTime(sum * C.ns) + ")" : "") +
		(asText ? " (the link's pattern, as text)" : "");
	window.fgMatched = pct;
	saveState();
}

function resetSearch() {
	ready();
	for (var j = 0; j < N; j++) setMatch(j, 0);
	term = null;
	matchCount = 0;
	window.fgMatched = undefined;
	searchBtn.classList.remove("show");
	searchBtn.textContent = "Search";
	matchedTxt.textContent = " ";
	saveState();
}

function askSearch() {
	var t = window.prompt("Enter a search term (regexp allowed, eg: ^ext4_)", term === null ? "" : term);
	if (t === null) return;
	/* Accepting the link's pattern unchanged is not typing it. */
	if (t === "") resetSearch(); else search(t, termFromLink && t === term);
}

function saveState() {
	var p = [];
	if (zoomed >= 0) p.push("x=" + fx[zoomed], "y=" + fd[zoomed]);
	if (term !== null) p.push("s=" + encodeURIComponent(term));
	if (ignoreCase) p.push("i=1");
	var url = location.pathname + (p.length ? "?" + p.join("&") : "") + location.hash;
	try { history.replaceState(null, "", url); } catch (e) { /* some viewers forbid it */ }
}

function restoreState() {
	var q = location.search.substring(1).split("&"), x = null, y = null, s = null, k;
	for (k = 0; k < q.length; k++) {
		var kv = q[k].split("="), v;
		if (kv.length < 2) continue;
		try { v = decodeURIComponent(kv.slice(1).join("=").replace(/\+/g, " ")); } catch (e) { continue; }
		if (kv[0] === "x") x = parseFloat(v);
		else if (kv[0] === "y") y = parseInt(v, 10);
		else if (kv[0] === "s") s = v;
		else if (kv[0] === "i") ignoreCase = v === "1";
	}
	icBtn.classList.toggle("show", ignoreCase);
	if (x !== null && y !== null && !isNaN(x)) {
		ready();
		for (k = 0; k < N; k++)
			if (fd[k] === y && Math.abs(fx[k] - x) <= 1e-9 * Math.max(1, Math.abs(x))) {
				zoom(k);
				break;
			}
	}
	if (s !== null) search(s, true);
}

/* A scan of the frames is quicker than giving each one an index property
 * first, and it is paid once per click or hover, not once per frame. */
function frameIndex(el) {
	while (el && el.parentNode !== framesG) el = el.parentNode;
	if (!el) return -1;
	ready();
	return nodes.indexOf(el);
}

framesG.addEventListener("click", function (e) {
	var i = frameIndex(e.target);
	if (i < 0) return;
	if (i === zoomed || fd[i] === 0) unzoom(); else zoom(i);
});
framesG.addEventListener("mouseover", function (e) {
	var i = frameIndex(e.target);
	if (i >= 0) details.textContent = nametype + " " + titleOf(i);
});
framesG.addEventListener("mouseout", function () { details.textContent = " "; });
unzoomBtn.addEventListener("click", unzoom);
searchBtn.addEventListener("click", function () {
	if (term === null) askSearch(); else resetSearch();
});
icBtn.addEventListener("click", function () {
	ignoreCase = !ignoreCase;
	icBtn.classList.toggle("show", ignoreCase);
	if (term !== null) search(term, termFromLink); else saveState();
});
window.addEventListener("keydown", function (e) {
	if ((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F") || e.key === "F3") {
		e.preventDefault();
		askSearch();
	} else if (e.key === "Escape") {
		unzoom();
		if (term !== null) resetSearch();
	}
});

/*
 * A graph taller than the window (one deep stack is enough) opens where
 * its frames start, the roots at the bottom of a flame graph, instead of
 * on empty space.  Its header (title, subtitle, the buttons) is pinned to
 * the top of the window over a band of the page's own colour, drawn
 * above the frames, and the details line to the bottom, so that the user
 * sees what the graph is, can search it, and sees its root, all at once.
 */
var headerIds = ["title", "subtitle", "unzoom", "search", "ignorecase"], footerIds = ["details", "matched"];
var header = null, footer = null;

/* The texts are moved, once, into a group painted after the frames, with
 * a band of the page's colour behind them that reaches the page's edge and
 * covers only the margin they sit in when the page is not scrolled.  The
 * texts' baselines say where that is (a blank details line has no box):
 * the header's margin ends below its lowest baseline, the footer's starts
 * a line above its highest. */
function pin(id, ids, toTop) {
	var ns = "http://www.w3.org/2000/svg", lo = Infinity, hi = -Infinity, fs = C.fontsize;
	var g = doc.createElementNS(ns, "g"), band = doc.createElementNS(ns, "rect");
	var stop = doc.querySelector("#background stop" + (toTop ? "" : ":last-child")), k, el, y;
	var H = +doc.documentElement.getAttribute("height");
	g.setAttribute("id", id);
	band.setAttribute("fill", stop ? stop.getAttribute("stop-color") : "#fff");
	g.appendChild(band);
	for (k = 0; k < ids.length; k++) {
		el = doc.getElementById(ids[k]);
		if (!el) continue;
		y = +el.getAttribute("y");
		lo = Math.min(lo, y);
		hi = Math.max(hi, y);
		g.appendChild(el);
	}
	lo = toTop ? 0 : lo - fs * 1.1;
	hi = toTop ? hi + fs * 0.4 : H;
	band.setAttribute("x", 0);
	band.setAttribute("y", lo);
	band.setAttribute("width", C.width);
	band.setAttribute("height", Math.max(0, hi - lo));
	doc.documentElement.appendChild(g);
	return g;
}

function keepControls() {
	var H = doc.documentElement.getBoundingClientRect().height;
	var y = window.scrollY || 0, vh = window.innerHeight;
	if (!header && H > vh) {
		header = pin("header", headerIds, true);
		footer = pin("footer", footerIds, false);
	}
	if (!header) return;
	header.setAttribute("transform", "translate(0," + y + ")");
	footer.setAttribute("transform", "translate(0," + Math.min(0, y + vh - H) + ")");
}

function showRoots() {
	/* A graph that fits in the window does not scroll: then there is
	 * nothing to move, and no reason to lay the page out before its first
	 * paint does. */
	if (+doc.documentElement.getAttribute("height") <= window.innerHeight) return;
	var H = doc.documentElement.getBoundingClientRect().height, vh = window.innerHeight;
	if (!C.inverted && vh > 0 && H > vh) window.scrollTo(0, H - vh);
	keepControls();
}

window.addEventListener("scroll", keepControls);
window.addEventListener("resize", keepControls);
restoreState();
showRoots();
idle(warm);
window.fg = { zoom: zoom, unzoom: unzoom, search: search, resetSearch: resetSearch, linkRegex: linkRegex,
	frames: function () { ready(); return N; }, zoomed: function () { return zoomed; } };
})();
