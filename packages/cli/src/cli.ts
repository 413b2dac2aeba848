#!/usr/bin/env node
import { runCli } from './program.js';

// `pnpm docevals ...` at the repository root runs in the root: go back to where the user typed it.
if (process.env.INIT_CWD && process.env.npm_lifecycle_event === 'docevals') process.chdir(process.env.INIT_CWD);

const code = await runCli(process.argv);
// Let stdout drain (a piped `--json`), then leave even if a handle (a timer, a socket) would keep node alive.
process.stdout.write('', () => process.exit(code));
