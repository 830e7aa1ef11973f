(function () {
"use strict";
var C = window.fgConf, doc = document;
var framesG = doc.getElementById("frames");
var details = doc.getElementById("details"), unzoomBtn = doc.getElementById("unzoom");
var searchBtn = doc.getElementById("search"), icBtn = doc.getElementById("ignorecase");
var matchedTxt = doc.getElementById("matched"), nametype = details.getAttribute("data-nametype") || "";
var nodes = [], fx, fw, fd, names = [], labels = [], classes = [], state, matched, N = 0;
var inited = false, hasDataName = false, warmed = 0;
var zoomed = -1, term = null, ignoreCase = false, matchCount = 0;
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
	if (term !== null) search(term);
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

/* Whether a pattern that came with a link may run as a regular expression:
 * one the viewer did not type could backtrack for hours on long names
 * ((a+)+$, a*a*a*b).  Allowed: at most one unbounded quantifier, no
 * quantified group, no backreference; anything else matches as text. */
function linkSafe(t) {
	var i, c, unbounded = 0, inClass = false, m;
	for (i = 0; i < t.length; i++) {
		c = t.charAt(i);
		if (c === "\\") {
			if (/[1-9k]/.test(t.charAt(i + 1))) return false;
			i++;
		} else if (inClass) {
			if (c === "]") inClass = false;
		} else if (c === "[") {
			inClass = true;
		} else if (c === "*" || c === "+" || c === "?" || c === "{") {
			if (c === "?" && t.charAt(i - 1) === "(") continue; /* (?: (?= ... */
			if (t.charAt(i - 1) === ")") return false;
			m = c === "{" ? /^\{(\d+)(,(\d*))?\}/.exec(t.substring(i)) : null;
			if (c === "*" || c === "+" || (m && m[2] && (m[3] === "" || +m[3] > 16)))
				unbounded++;
		}
	}
	return unbounded <= 1;
}

function setMatch(j, m) {
	if (matched[j] === m) return;
	matched[j] = m;
	setClass(j);
}

function search(t, fromLink) {
	ready();
	var re, j, v = view(), lo = v[0], hi = v[0] + v[1], asText = fromLink && !linkSafe(t);
	try {
		re = new RegExp(asText ? t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : t, ignoreCase ? "i" : "");
	} catch (e) {
		matchedTxt.textContent = "Invalid regular expression";
		return;
	}
	term = t;
	matchCount = 0;
	var a = new Float64Array(N), b = new Float64Array(N), hits = [];
	for (j = 0; j < N; j++) {
		var m = re.test(nameOf(j)) ? 1 : 0;
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
	if (t === "") resetSearch(); else search(t);
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
	if (term !== null) search(term); else saveState();
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
 * on empty space; the buttons at the top and the details line at the
 * bottom follow the scroll, so they stay in view.
 */
var topCtl = ["unzoom", "search", "ignorecase"], bottomCtl = ["details", "matched"];

function moveAll(ids, dy) {
	for (var k = 0; k < ids.length; k++) {
		var el = doc.getElementById(ids[k]);
		if (el) el.setAttribute("transform", "translate(0," + dy + ")");
	}
}

function keepControls() {
	var H = doc.documentElement.getBoundingClientRect().height;
	var y = window.scrollY || 0, vh = window.innerHeight;
	moveAll(topCtl, y);
	moveAll(bottomCtl, Math.min(0, y + vh - H));
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
window.fg = { zoom: zoom, unzoom: unzoom, search: search, resetSearch: resetSearch,
	frames: function () { ready(); return N; }, zoomed: function () { return zoomed; } };
})();
