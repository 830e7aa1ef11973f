/*
 * The script of every flame graph, prof-svg/flamegraph.js, embedded
 * verbatim as the NUL-terminated string svg_script_js (svg_write.h).  It
 * stays a JavaScript file, which node can check and a reader can read,
 * yet prof-svg needs no file at run time.  Not a byte of the .js is
 * dropped, so a comment added there ships in every SVG.
 *
 * svg_write.c puts it in a CDATA section after a "fgConf" object of
 * numbers.  It reads frame geometry from the data-x/-w/-d attributes
 * (sample units) and never builds markup from text: names only reach
 * textContent, RegExp and the linear-time matcher of a link's search.  A zoom changes one transform on #frames and
 * rewrites only the labels wide enough to show, so it stays fast with
 * 100,000 frames.
 *
 * Frames: click zooms (ancestors dimmed; click one to zoom out), Reset
 * Zoom, Search (or Ctrl-F) with a regexp and the matched share (nested
 * matches counted once), "ic" toggles case, Esc resets; state lives in
 * ?x=&y=&s=&i=.
 *
 * The path is from the top of the tree, where make runs the assembler;
 * the Makefile has this object depend on the .js, which the compiler's
 * dependency files cannot see.
 */
	.section .rodata
	.globl	svg_script_js
	.type	svg_script_js, %object
svg_script_js:
	.incbin	"prof-svg/flamegraph.js"
	.byte	0
	.size	svg_script_js, . - svg_script_js

/* Without this note the linker would give prof-svg an executable stack. */
	.section .note.GNU-stack, "", %progbits
