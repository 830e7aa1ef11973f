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
	/* A range's frames are in the order it drew them, not the page's. */
	if (pool.drawing)
		for (i = 0; i < pool.order.length; i++) nodes.push(pool.state[pool.order[i]].g);
	else
		for (i = 0; i < kids.length; i++)
			if (kids[i].tagName === "g") nodes.push(kids[i]);
	N = nodes.length;
	fx = new Float64Array(N); fw = new Float64Array(N); fd = new Int32Array(N);
	state = new Uint8Array(N);
	matched = new Uint8Array(N);
	for (i = 0; i < N; i++) {
		g = nodes[i];
		/* A range's frames are the script's own: it knows where they are. */
		var st = pool.drawing && pool.state[pool.order[i]];
		fx[i] = st ? st.x : +g.getAttribute("data-x");
		fw[i] = st ? st.v : +g.getAttribute("data-w");
		fd[i] = st ? st.d : +g.getAttribute("data-d");
		classes[i] = st ? "f" : g.getAttribute("class") || "";
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

/* A range's frames get their titles when first asked (the hover that
 * shows one asks): 4,000 of them, written at each redraw, were a third of
 * its time. */
function titleOf(i) {
	var t = nodes[i].firstElementChild, st;
	if (pool.drawing && (st = pool.state[pool.order[i]])) {
		if (st.title === undefined) t.textContent = st.title = info(st.name, st.v, rangeAll);
		return st.title;
	}
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
var total = C.total, omitted = C.omitted || 0; /* of the graph drawn: a range's */
var wpt = full / total; /* pixels per sample */
var minLabel = 3 * charW;

function textOf(i) {
	var t = texts[i];
	if (t === undefined) {
		if (pool.drawing) {
			t = labelText(pool.state[pool.order[i]]);
		} else {
			t = nodes[i].lastElementChild;
			if (t.tagName === "a") t = t.lastElementChild;
		}
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
	var s = total / w0, tx = C.xpad - s * (C.xpad + x0 * wpt);
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
	matchedTxt.textContent = "Matched: " + (omitted ? "\u2265" : "") + pct.toFixed(2) + "%" +
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
	if (range) p.push("t=" + secs(range[0]) + "-" + secs(range[1]));
	var url = location.pathname + (p.length ? "?" + p.join("&") : "") + location.hash;
	try { history.replaceState(null, "", url); } catch (e) { /* some viewers forbid it */ }
}

function restoreState() {
	var q = location.search.substring(1).split("&"), x = null, y = null, s = null, t = null, k;
	for (k = 0; k < q.length; k++) {
		var kv = q[k].split("="), v;
		if (kv.length < 2) continue;
		try { v = decodeURIComponent(kv.slice(1).join("=").replace(/\+/g, " ")); } catch (e) { continue; }
		if (kv[0] === "x") x = parseFloat(v);
		else if (kv[0] === "y") y = parseInt(v, 10);
		else if (kv[0] === "s") s = v;
		else if (kv[0] === "i") ignoreCase = v === "1";
		else if (kv[0] === "t") t = /^(\d+(?:\.\d*)?)-(\d+(?:\.\d*)?)$/.exec(v);
	}
	icBtn.classList.toggle("show", ignoreCase);
	/* The range first: a zoom and a search are of the graph it draws. */
	if (t && C.heat) showRange(parseFloat(t[1]) * 1e9, parseFloat(t[2]) * 1e9);
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


/*
 * A range of time (a timed profile's heatmap, or ?t=START-END in seconds
 * from the heatmap's first column): the graph is drawn again from the
 * counts of the slots that start in it.  The page holds every node of the
 * profile in preorder, children ordered as prof-svg orders them
 * (fg-tree), and each slot's counts by leaf (fg-time): a range's counts
 * are summed into the leaves, then up the tree, in two passes over typed
 * arrays; the frames wide enough to draw are chosen as prof-svg chooses
 * them (the minimum width, then the frame budget) and written at once.
 */
var range = null, TD = null, rootFill = null, rangeAll = 0;

/* A digit of base 36, or -1. */
function b36(c) {
	return c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 122 ? c - 87 : -1;
}

/* The tree (fg-tree): each node's name, depth, parent and blocked bit. */
function parseTree(text) {
	var cap = 1024, k, c, d, v = 0, inNum = false, up = -1, blocked = 0, M = 1, depth = 0;
	var name = new Int32Array(cap), dep = new Int32Array(cap), par = new Int32Array(cap), blk = new Uint8Array(cap);
	var end = new Int32Array(cap), path = new Int32Array(64), top = 0;
	name[0] = -1;
	par[0] = -1;
	path[0] = 0;
	for (k = 0; k <= text.length; k++) {
		c = k < text.length ? text.charCodeAt(k) : 32;
		if ((d = b36(c)) >= 0) {
			v = inNum ? v * 36 + d : d;
			inNum = true;
			continue;
		}
		if (c === 44) { up = 0; continue; } /* ',' */
		if (c === 33) { blocked = 1; continue; } /* '!' */
		if (!inNum) continue;
		inNum = false;
		if (up === 0) { up = v; continue; }
		if (M === cap) {
			cap *= 2;
			name = grow(name, cap); dep = grow(dep, cap); par = grow(par, cap); blk = grow(blk, cap);
			end = grow(end, cap);
		}
		depth = depth + 1 - (up > 0 ? up : 0);
		if (depth < 1) depth = 1;
		if (depth >= path.length) path = grow(path, path.length * 2);
		/* The subtrees of the nodes on the path from here down end here. */
		for (d = depth; d <= top; d++) end[path[d]] = M;
		top = depth;
		name[M] = v;
		dep[M] = depth;
		par[M] = path[depth - 1];
		blk[M] = blocked;
		path[depth] = M++;
		up = -1;
		blocked = 0;
	}
	for (d = 0; d <= top; d++) end[path[d]] = M;
	return { M: M, name: name, depth: dep, parent: par, blk: blk, end: end };
}

function grow(a, n) {
	var b = new a.constructor(n);
	b.set(a.subarray(0, Math.min(a.length, n)));
	return b;
}

/* The counts (fg-time): a line a slot, its start, then leaf and count. */
function parseTime(text, T) {
	var lines = text.split("\n"), S = [], off = [0], cap = 1024, n = 0, k, j, c, d, v, f;
	var node = new Int32Array(cap), count = new Float64Array(cap);
	for (k = 0; k < lines.length; k++) {
		var line = lines[k], parts;
		if (!line) continue;
		parts = line.split(" ");
		S.push(+parts[0]);
		for (j = 1; j + 1 < parts.length; j += 2) {
			if (n === cap) {
				cap *= 2;
				node = grow(node, cap);
				count = grow(count, cap);
			}
			for (v = 0, f = parts[j], c = 0; c < f.length; c++)
				if ((d = b36(f.charCodeAt(c))) >= 0) v = v * 36 + d;
			node[n] = v < T.M ? v : 0;
			count[n++] = +parts[j + 1];
		}
		off.push(n);
	}
	T.start = Float64Array.from(S);
	T.off = Uint32Array.from(off);
	T.node = node;
	T.count = count;
}

function timeData() {
	if (TD) return TD;
	var T = parseTree(doc.getElementById("fg-tree").textContent), M = T.M;
	T.names = doc.getElementById("fg-names").textContent.split("\n");
	T.colors = doc.getElementById("fg-colors").textContent.split(/\s+/);
	parseTime(doc.getElementById("fg-time").textContent, T);
	T.incl = new Float64Array(M);
	T.kids = new Float64Array(M);
	T.x = new Float64Array(M);
	T.cur = new Float64Array(M);
	T.cand = new Float64Array(M);
	T.drawn = new Int32Array(M);
	/* Each node's slot in the pool, and the redraw that last drew it;
	 * written whole here, so that no redraw waits for their pages. */
	T.slot = new Int32Array(M).fill(-1);
	T.mark = new Uint32Array(M).fill(0);
	T.shown = [];
	T.fills = [];
	/* Written by each layout: here first, so that the object keeps its
	 * shape and the compiled layout is not thrown away at the first. */
	T.ndrawn = 0;
	T.positive = 0;
	var root = framesG.querySelector("rect");
	rootFill = root ? root.getAttribute("fill") : "";
	TD = T;
	return TD;
}

/* The first slot that starts at or after t. */
function slotAt(t) {
	var lo = 0, hi = TD.start.length;
	while (lo < hi) {
		var mid = (lo + hi) >> 1;
		if (TD.start[mid] < t) lo = mid + 1; else hi = mid;
	}
	return lo;
}

/* A name as a frame shows it (without its kind's mark), and its colour,
 * made once per name. */
function shownName(T, n) {
	var s = T.shown[n];
	if (s === undefined) s = T.shown[n] = T.names[n].replace(KIND, "");
	return s;
}

function nameFill(T, n, blocked) {
	var j = 2 * n + (blocked ? 1 : 0), f = T.fills[j];
	if (f === undefined) f = T.fills[j] = rgb(T.colors[n], blocked ? 6 : 0);
	return f;
}

/* The colour at k in "rrggbbrrggbb", written as prof-svg writes it. */
function rgb(hex, k) {
	return "rgb(" + parseInt(hex.substring(k, k + 2), 16) + "," + parseInt(hex.substring(k + 2, k + 4), 16) +
		"," + parseInt(hex.substring(k + 4, k + 6), 16) + ")";
}

/* A count as prof-svg writes it: thousands separators, up to 3 decimals. */
function fmtCount(v) {
	var s = v === Math.floor(v) && Math.abs(v) < 1e15 ? v.toFixed(0) : v.toFixed(3).replace(/\.?0+$/, "");
	var d = s.indexOf("."), i = d < 0 ? s.length : d;
	var head = s.substring(0, i), o = "";
	for (var k = 0; k < head.length; k++) {
		if (k && head.charAt(k - 1) !== "-" && (head.length - k) % 3 === 0) o += ",";
		o += head.charAt(k);
	}
	return o + s.substring(i);
}

function info(name, count, all) {
	var c = C.ns ? fmtTime(count * C.ns) : fmtCount(count * C.factor) + " " + countName;
	return name + " (" + c + ", " + (100 * count / all).toFixed(2) + "%)";
}

var countName = details.getAttribute("data-countname") || "samples";
var KIND = /_\[[kjiwp]\]$/;
var nextUp = new Float64Array(1), nextUpBits = new BigUint64Array(nextUp.buffer);

/* v[0..n) reordered so that v[k] is its k-th greatest (from 0).  The
 * caller reads it: here, after the loops, the engine would have no
 * record of the access and drop the compiled loops at every call. */
function kth(v, n, k) {
	var lo = 0, hi = n - 1;
	while (lo < hi) {
		var p = v[(lo + hi) >> 1], i = lo, j = hi, t;
		while (i <= j) {
			while (v[i] > p) i++;
			while (v[j] < p) j--;
			if (i <= j) { t = v[i]; v[i++] = v[j]; v[j--] = t; }
		}
		if (k <= j) hi = j; else if (k >= i) lo = i; else break;
	}
}

/*
 * The frames of a range are written into elements kept from one range to
 * the next, in place: parsing new markup for 4,000 frames took 140 ms in
 * Chromium, setting their attributes a fraction of it.  A frame drawn in
 * both ranges keeps its element (T.slot[node]), so that its row and
 * colour are not written again: Chromium restyles each element written.
 * A frame newly drawn takes the element of one no longer drawn at its
 * depth where there is one, which keeps the row.  pool.order is the
 * range's frames in preorder, as slots; pool.free[depth] the slots of
 * frames no longer drawn.
 */
var NS = "http://www.w3.org/2000/svg";
var pool = { drawing: false, state: [], order: [], free: [], nfree: 0, spare: [], gen: 0 };

/* A slot for a frame at depth d: one left at d, else at the depth
 * nearest it, else one made ahead (pool.spare) or a new one. */
function freeSlot(d) {
	var free = pool.free, j;
	if (!pool.nfree) return pool.spare.length ? pool.spare.pop() : pool.state.length;
	for (j = 0; ; j++) {
		if (free[d + j] && free[d + j].length) { d += j; break; }
		if (j <= d && free[d - j] && free[d - j].length) { d -= j; break; }
	}
	pool.nfree--;
	return free[d].pop();
}

function releaseSlot(s) {
	var d = pool.state[s].d;
	(pool.free[d] || (pool.free[d] = [])).push(s);
	pool.nfree++;
}

/* A frame's element, g's or a new one, and what is written on it.  A new
 * one has its text element only once it has a label: most frames of a
 * range are too narrow for one, and an empty text element doubled the
 * time Chromium took to show a new frame. */
function frameState(g) {
	if (!g) {
		g = doc.createElementNS(NS, "g");
		g.appendChild(doc.createElementNS(NS, "title"));
		g.appendChild(doc.createElementNS(NS, "rect")).setAttribute("height", (C.fh - 1).toFixed(1));
	}
	return { g: g, rect: g.children[1], text: g.children[2] || null, k: -1, v: 0, x: 0, rx: 0, rw: 0, d: -1,
		ty: -1, fill: "", label: "", name: "", title: undefined };
}

function rowY(d) {
	return C.inverted ? C.y0 + d * C.fh : C.y0 - d * C.fh;
}

/* The text element of st's frame, made where it was not and placed where
 * the frame is. */
function labelText(st) {
	if (!st.text) {
		st.text = st.g.appendChild(doc.createElementNS(NS, "text"));
		st.text.setAttribute("x", (st.rx + 3).toFixed(2));
		placeText(st, rowY(st.d));
	}
	return st.text;
}

function placeText(st, y) {
	if (st.ty !== y) st.text.setAttribute("y", (y + (C.fh - 1) / 2 + C.fontsize / 3).toFixed(2));
	st.ty = y;
}

function slotState(i) {
	var st = pool.state[i];
	return st || (pool.state[i] = frameState(null));
}

/*
 * prof-svg's own frames are the first range's elements, where they are
 * plain (no --nameattr class, id or link): they are styled and laid out
 * already, and the first redraw writes them as the later ones do, instead
 * of 1,500 new frames added that took longer than the rest of the redraw.
 */
function adoptFrames() {
	var kids = Array.prototype.slice.call(framesG.children), i, g, c, st;
	for (i = 0; i < kids.length; i++) {
		g = kids[i];
		c = g.children;
		if (g.tagName !== "g" || g.attributes.length !== 4 || g.getAttribute("class") !== "f" || c.length !== 3 ||
		    c[0].tagName !== "title" || c[1].tagName !== "rect" || c[2].tagName !== "text") {
			framesG.removeChild(g);
			continue;
		}
		st = frameState(g);
		st.d = +g.getAttribute("data-d");
		st.ty = +st.rect.getAttribute("y");
		st.fill = st.rect.getAttribute("fill");
		st.label = st.text.textContent;
		/* What the page's frames said of their place is the range's now. */
		g.removeAttribute("data-x");
		g.removeAttribute("data-w");
		g.removeAttribute("data-d");
		releaseSlot(pool.state.push(st) - 1);
	}
}

/* Frame k, of count v at x samples from the left, drawn at wp pixels a
 * sample on st's element: only what differs from what st holds is written.
 * A frame too narrow to show a character leaves its label where it was. */
function writeFrame(T, st, k, v, x, wp) {
	var rx = C.xpad + x * wp, rw = v * wp, same = st.k === k;
	/* The title's share is of the range's total: written when asked. */
	st.title = undefined;
	st.v = v;
	st.x = x;
	if (same && st.rx === rx && st.rw === rw) return;
	var d = T.depth[k], y = rowY(d);
	var shown = same ? st.name : k ? shownName(T, T.name[k]) : "all", label = fit(shown, rw);
	var fill = same ? st.fill : k ? nameFill(T, T.name[k], C.blocked && T.blk[k]) : rootFill;
	st.rect.setAttribute("x", rx.toFixed(2));
	st.rect.setAttribute("width", rw.toFixed(2));
	if (st.d !== d) st.rect.setAttribute("y", y.toFixed(1));
	if (st.fill !== fill) st.rect.setAttribute("fill", fill);
	st.k = k; st.rx = rx; st.rw = rw; st.d = d; st.fill = fill; st.name = shown;
	if (label || st.label) {
		var text = labelText(st);
		text.setAttribute("x", (rx + 3).toFixed(2));
		placeText(st, y);
		if (st.label !== label) text.textContent = label;
		st.label = label;
	}
}

/* The frames of the slots that start in [a, b) ns from t0 (the whole
 * profile when a is null): their count (T.incl), place (T.x) and, in
 * preorder, the T.ndrawn drawn (T.drawn).  Returns the range's total.
 * Each loop is a function of its own: the engine compiles a function
 * whole from what its earlier runs saw, where a loop compiled while it
 * runs left the code after it uncompiled, at every redraw. */
function rangeLayout(a, b) {
	var T = timeData();
	var all = sumSlots(T, a === null ? 0 : slotAt(a), a === null ? T.start.length : slotAt(b));
	var minPx = C.minwPct ? C.minw / 100 * full : C.minw, minw = all > 0 ? minPx * all / full : 0;
	var nc = sumUp(T, minw);
	T.positive = sumUpPositive;
	/* Summed again, the root's count is the records' sum, to the bit or
	 * near it: the records' sum is what prof-svg's root has. */
	T.incl[0] = all;
	if (all > 0) {
		T.positive++;
		if (all >= minw) T.cand[nc++] = all;
	}
	if (C.maxframes > 0 && nc > C.maxframes) {
		/* As prof-svg: the frames wider than the budget's last, the
		 * next double up from it. */
		kth(T.cand, nc, C.maxframes);
		nextUp[0] = T.cand[C.maxframes];
		nextUpBits[0] += 1n;
		if (nextUp[0] > minw) minw = nextUp[0];
	}
	T.ndrawn = place(T, all, minw);
	return all;
}

var sumUpPositive = 0;

/* The counts of slots [s0, s1) on their nodes; their sum. */
function sumSlots(T, s0, s1) {
	var incl = T.incl, node = T.node, count = T.count, all = 0, k;
	incl.fill(0);
	T.kids.fill(0);
	for (k = T.off[s0]; k < T.off[s1]; k++) {
		incl[node[k]] += count[k];
		all += count[k];
	}
	return all;
}

/* Each node's count but the root's made inclusive (T.incl), its
 * children's (T.kids); T.positive the nodes that count.  Returns how many
 * are minw or wider, whose counts are T.cand, the candidates for the
 * frame budget. */
function sumUp(T, minw) {
	var incl = T.incl, kids = T.kids, par = T.parent, cand = T.cand, positive = 0, nc = 0, k, p, v;
	/* Children follow their parent: backwards, each is complete when its
	 * count goes up. */
	for (k = T.M - 1; k > 0; k--) {
		if ((v = incl[k]) === 0) continue;
		p = par[k];
		incl[p] += v;
		kids[p] += v;
		positive++;
		if (v >= minw) cand[nc++] = v;
	}
	/* Not a property of T: the engine dropped the compiled loop at every
	 * call for a store it had seen only before the loop was compiled. */
	sumUpPositive = positive;
	return nc;
}

/* Self time first, then the children in order, as prof-svg places them
 * (T.x).  A frame too narrow, or too deep, to be drawn has no drawn
 * child: past it, its subtree moves its parent's next child only.
 * Returns how many are drawn. */
function place(T, all, minw) {
	var incl = T.incl, kids = T.kids, x = T.x, cur = T.cur, par = T.parent, dep = T.depth, end = T.end;
	var M = T.M, depthmax = C.depthmax, drawn = 0, k, p, v;
	x[0] = 0;
	cur[0] = Math.max(0, all - kids[0]);
	if (all > 0 && all >= minw) T.drawn[drawn++] = 0;
	for (k = drawn ? 1 : M; k < M;) {
		v = incl[k];
		p = par[k];
		if (v < minw || !(v > 0) || dep[k] > depthmax) {
			cur[p] += v;
			k = end[k];
			continue;
		}
		x[k] = cur[p];
		cur[p] += v;
		cur[k] = x[k] + Math.max(0, v - kids[k]);
		T.drawn[drawn++] = k++;
	}
	return drawn;
}

/* Draws the graph of the slots that start in [a, b) ns from t0, or the
 * whole profile when a is null. */
function drawRange(a, b) {
	var T = timeData(), all = rangeLayout(a, b), drawn = T.ndrawn, incl = T.incl, x = T.x, dep = T.depth;
	var wp = all > 0 ? full / all : 0, i, k, s, st;
	var redraw = pool.drawing, order = pool.order, free = pool.free, slot = T.slot, mark = T.mark;
	rangeAll = all;
	/* What zoom and search left on the elements (a label's transform, a
	 * class) is undone first, from what the viewer knows of them: the loop
	 * below reads nothing back from the page. */
	if (inited) {
		for (i = 0; i < N; i++) {
			if (textTf[i]) textOf(i).removeAttribute("transform");
			if (state[i] || matched[i]) nodes[i].setAttribute("class", "f");
			/* A label the zoom wrote is the element's, to be written
			 * over even where the frame stays where it was. */
			if (redraw && labels[i] !== undefined && (st = pool.state[order[i]]).label !== labels[i]) {
				st.label = labels[i];
				st.rw = -1;
			}
		}
	}
	if (!redraw) {
		adoptFrames();
		pool.drawing = true;
	}
	var gen = ++pool.gen;
	for (i = 0; i < drawn; i++) mark[T.drawn[i]] = gen;
	for (i = 0; i < order.length; i++) {
		st = pool.state[order[i]];
		if (mark[st.k] !== gen) {
			slot[st.k] = -1;
			st.k = -1;
			releaseSlot(order[i]);
		}
	}
	order.length = drawn;
	for (i = 0; i < drawn; i++) {
		k = T.drawn[i];
		if ((s = slot[k]) < 0) s = slot[k] = freeSlot(dep[k]);
		order[i] = s;
		st = slotState(s);
		writeFrame(T, st, k, incl[k], x[k], wp);
		if (st.g.parentNode !== framesG) framesG.appendChild(st.g);
	}
	free.forEach(function (slots) {
		for (var j = 0; j < slots.length; j++)
			if (pool.state[slots[j]].g.parentNode) framesG.removeChild(pool.state[slots[j]].g);
	});
	framesG.removeAttribute("transform");
	/* The viewer starts over on the new frames. */
	nodes = []; names = []; labels = []; classes = []; texts = []; textTf = [];
	inited = false; warmed = 0; zoomed = -1;
	total = all > 0 ? all : 1;
	wpt = full / total;
	omitted = T.positive - drawn;
	unzoomBtn.classList.add("hide");
	ready();
	for (i = 0; i < drawn; i++) names[i] = pool.state[order[i]].name;
	warmed = drawn;
	return all;
}

var heatG = doc.getElementById("heatmap"), heatSel = doc.getElementById("heat-sel");
var heatRange = doc.getElementById("heat-range"), H = C.heat;

function secs(ns) {
	return String(+(ns / 1e9).toFixed(6));
}

/* The cell under an event, as [column, row], or null outside them. */
function cellAt(e) {
	var m = heatG.getScreenCTM(), pt = doc.documentElement.createSVGPoint();
	pt.x = e.clientX;
	pt.y = e.clientY;
	pt = pt.matrixTransform(m.inverse());
	var c = Math.floor((pt.x - H.x) / H.cw), r = Math.floor((pt.y - H.y) / H.rh);
	if (c < 0 || c >= H.cols || r < 0 || r >= H.rows) return null;
	return [c, r];
}

function cellStart(c) {
	return c[0] * 1e9 + c[1] * H.rowNs;
}

/* Outlines [a, b) ns: a part column, whole columns, a part column. */
function outline(a, b) {
	if (a === null) { heatSel.setAttribute("d", ""); return; }
	var d = "", c0 = Math.floor(a / 1e9), c1 = Math.floor((b - 1) / 1e9), r0, r1, c;
	for (c = c0; c <= c1 && c < H.cols; c++) {
		r0 = c === c0 ? Math.floor((a - c * 1e9) / H.rowNs + 1e-9) : 0;
		r1 = c === c1 ? Math.ceil((b - c * 1e9) / H.rowNs - 1e-9) : H.rows;
		if (r1 <= r0) continue;
		d += "M" + (H.x + c * H.cw).toFixed(2) + "," + (H.y + r0 * H.rh).toFixed(2) + "h" + H.cw.toFixed(3) +
			"v" + ((r1 - r0) * H.rh).toFixed(2) + "h" + (-H.cw).toFixed(3) + "z";
	}
	heatSel.setAttribute("d", d);
}

function showRange(a, b) {
	if (!C.heat) return;
	if (a !== null && !(b > a)) return;
	range = a === null ? null : [a, b];
	var all = drawRange(a, b);
	outline(a, b);
	heatRange.textContent = a === null ? " " : secs(a) + "\u2013" + secs(b) + " s: " +
		(C.ns ? fmtTime(all * C.ns) : fmtCount(all * C.factor) + " " + countName) + " \u00d7 (show all)";
	if (term !== null) search(term, termFromLink); else saveState();
}

if (H) {
	var dragFrom = null;
	heatG.addEventListener("mousedown", function (e) {
		var c = cellAt(e);
		if (!c) return;
		e.preventDefault();
		dragFrom = c;
		var a = cellStart(c);
		outline(a, a + H.rowNs);
	});
	window.addEventListener("mousemove", function (e) {
		var c = dragFrom && cellAt(e);
		if (c) {
			var a = Math.min(cellStart(dragFrom), cellStart(c)), b = Math.max(cellStart(dragFrom), cellStart(c));
			outline(a, b + H.rowNs);
		}
	});
	window.addEventListener("mouseup", function (e) {
		if (!dragFrom) return;
		var c = cellAt(e) || dragFrom, a = Math.min(cellStart(dragFrom), cellStart(c));
		var b = Math.max(cellStart(dragFrom), cellStart(c)) + H.rowNs;
		dragFrom = null;
		showRange(a, b);
	});
	heatG.addEventListener("mousemove", function (e) {
		var c = cellAt(e);
		if (!c || dragFrom) return;
		var a = cellStart(c), T = timeData(), sum = 0;
		for (var k = T.off[slotAt(a)]; k < T.off[slotAt(a + H.rowNs)]; k++) sum += T.count[k];
		details.textContent = secs(a) + "\u2013" + secs(a + H.rowNs) + " s: " +
			(C.ns ? fmtTime(sum * C.ns) : fmtCount(sum * C.factor) + " " + countName);
	});
	heatG.addEventListener("mouseout", function () { details.textContent = " "; });
	heatRange.addEventListener("mousedown", function (e) { e.stopPropagation(); });
	heatRange.addEventListener("click", function () { if (range) showRange(null, null); });
}

window.addEventListener("scroll", keepControls);
window.addEventListener("resize", keepControls);
restoreState();
showRoots();
idle(warm);
/* A range's first redraw would otherwise read the whole profile first,
 * make its elements, and run code not yet compiled: the first ones took
 * twice as long as the later.  The engine compiles a loop well after a
 * few runs, and again when a run takes a path the earlier ones did not:
 * the whole profile, then parts of it, each written on two elements of
 * no page. */
var warmRuns = 0, scratch = null;
function warmRange() {
	var T = timeData(), S = T.start, n = S.length, all, i, k;
	for (i = pool.state.length; i < (C.maxframes > 0 ? C.maxframes : Math.min(T.M, 8192)); i++) {
		slotState(i);
		pool.spare.push(i);
	}
	scratch = scratch || [frameState(null), frameState(null)];
	/* Parts of 1/2 to 1/32 of the slots, the whole between them. */
	var part = warmRuns % 2 && n > 1 ? Math.max(1, n >> (warmRuns + 1) / 2) : 0, from;
	if (part) {
		from = (warmRuns * n / 7 | 0) % (n - part);
		all = rangeLayout(S[from], S[from + part]);
	} else {
		all = rangeLayout(null, null);
	}
	for (i = 0; i < T.ndrawn; i++) {
		k = T.drawn[i];
		writeFrame(T, scratch[i & 1], k, T.incl[k], T.x[k], all > 0 ? full / all : 0);
	}
	if (++warmRuns < 10) idle(warmRange);
}
if (C.heat) idle(warmRange);
window.fg = { zoom: zoom, unzoom: unzoom, search: search, resetSearch: resetSearch, linkRegex: linkRegex,
	frames: function () { ready(); return N; }, zoomed: function () { return zoomed; },
	title: function (i) { ready(); return titleOf(i); },
	frame: function (i) { ready(); return i < N ? [fx[i], fw[i], fd[i]] : null; },
	/* The i-th frame's element: in a range, the page's order is not the
	 * frames' (an element stays with its frame from range to range). */
	element: function (i) { ready(); return i < N ? nodes[i] : null; },
	layout: function (a, b) { return rangeLayout(a * 1e9, b * 1e9); },
	range: function (a, b) { showRange(a === null ? null : a * 1e9, b * 1e9); return range; } };
})();
