// How check.js and server.js start Debian's chromium.
'use strict';
module.exports.ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
	'--no-first-run', '--disable-background-networking', '--disable-component-update',
	'--disable-sync'];
