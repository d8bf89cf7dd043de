#!/bin/sh
':' //; self=$(readlink -f -- "$0" 2>/dev/null) || self=$0; dist=${self%/bin/*}/dist
':' //; case " $* " in *" serve "*) [ "${SWITCHBOARD_SNAPSHOT-}" != 0 ] && key=$dist && slot= && while :; do case $key in */*) slot=$slot${key%%/*}_; key=${key#*/};; *) slot=$slot$key; break;; esac; done && blob=${SWITCHBOARD_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/switchboard}/$slot.blob && { read -r built <"$blob.node"; } 2>/dev/null && node=$(command -v node) && [ "$node" -ef "$built" ] && [ -f "$blob" ] && [ ! "$node" -nt "$blob" ] && [ ! "$dist/snapshot.cjs" -nt "$blob" ] && exec "$node" --snapshot-blob "$blob" "$dist" "$@" ;; esac
':' //; exec node "$self" "$@"
// Entry point of the `switchboard` command: runs the built CLI bundle (npm run build).
//
// The three lines above are shell (they are string statements and comments to JavaScript): run as a command (an
// agent's stdio config, a terminal), `serve` starts from the V8 startup snapshot this install built in the user's
// cache (src/cli/snapshot-cache.ts: the blob is named after the dist folder, every `/` a `_`) when the `node` on
// PATH built it and it is newer than that `node` and dist/snapshot.cjs; otherwise, and under
// `node bin/switchboard.js`, the ESM bundle runs (and `serve` builds the snapshot in the background for next time).
// SWITCHBOARD_SNAPSHOT=0 starts without it.
import { main } from '../dist/index.js';

await main();
