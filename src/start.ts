#!/usr/bin/env node
import './cli/runtime.js' // first: exits with one line on an unsupported Node.js, turns on the compile cache

// `npm start`: the start-up of `book-service serve` (src/cli/start-up.ts). Imported only
// now, after runtime.js has turned on the module compile cache: the static imports of an ES module
// are all compiled before any of their bodies runs, so a static import here would never be cached.
const { serve } = await import('./cli/start-up.js')
await serve()
