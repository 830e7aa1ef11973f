#!/usr/bin/env node
// One Debian chromium for a whole bats file: prints the endpoint check.js
// connects to (PROF_BROWSER_WS), and runs until it is killed.  Starting a
// browser for each check took most of the suite's time.
'use strict';
const { chromium } = require('playwright-core');
const { ARGS } = require('./launch');

(async () => {
	const server = await chromium.launchServer({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
		headless: true,
		args: ARGS,
		// Not "localhost": a root without /etc/hosts cannot resolve it.
		host: '127.0.0.1',
	});
	console.log(server.wsEndpoint());
	const stop = async () => {
		await server.close();
		process.exit(0);
	};
	process.on('SIGTERM', stop);
	process.on('SIGINT', stop);
})().catch((e) => {
	console.error(String(e));
	process.exit(1);
});
