#!/usr/bin/env node
// Entry point of the `switchboard` command: runs the built CLI bundle (npm run build).
import { main } from '../dist/index.js';

await main();
