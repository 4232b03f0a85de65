#!/usr/bin/env node
import './runtime.js' // first: exits with one line on an unsupported Node.js, turns on the compile cache

// `book-service …` entry. The program is imported only now, after runtime.js has turned on the
// module compile cache: a static import would be compiled before any module body runs, so the
// cache would never see the service's own (ES) modules.
const { commandLine } = await import('./command-line.js')
await commandLine().parseAsync()
