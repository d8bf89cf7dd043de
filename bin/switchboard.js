#!/bin/sh
':' //; self=$(readlink -f -- "$0" 2>/dev/null) || self=$0; dist=${self%/bin/*}/dist; blob=$dist/switchboard.blob
':' //; case " $* " in *" serve "*) { read -r built <"$blob.node"; } 2>/dev/null && node=$(command -v node) && [ "$node" -ef "$built" ] && [ -f "$blob" ] && [ ! "$node" -nt "$blob" ] && exec "$node" --snapshot-blob "$blob" "$dist" "$@" ;; esac
':' //; exec node "$self" "$@"
// Entry point of the `switchboard` command: runs the built CLI bundle (npm run build).
//
// The three lines above are shell (they are string statements and comments to JavaScript): run as a command
// (`npx -y switchboard-mcp serve`, an agent's stdio config), `serve` starts from the V8 startup snapshot
// dist/switchboard.blob when the Node on PATH is the one that built it — much faster to a first answer (see
// docs/decisions.md, "Startup snapshot"); otherwise, and under `node bin/switchboard.js`, the ESM bundle runs.
import { main } from '../dist/index.js';

await main();
