#!/usr/bin/env node
import './runtime.js' // first: exits with one line on an unsupported Node.js, turns on the compile cache

// `npm start` entry: the same start-up as `book-service serve` (src/serve.ts). Imported only now,
// after runtime.js has turned on the module compile cache: the static imports of an ES module are
// all compiled before any of their bodies runs, so a static import here would never be cached.
const { serve } = await import('./serve.js')
await serve()
