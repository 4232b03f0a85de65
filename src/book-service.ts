#!/usr/bin/env node
import './cli/runtime.js' // first: exits with one line on an unsupported Node.js, turns on the compile cache

// `book-service …`: the command line of src/cli/program.ts. Imported only now, after runtime.js
// has turned on the module compile cache: a static import would be compiled before any module
// body runs, so the cache would never see the service's own (ES) modules.
const { program } = await import('./cli/program.js')
await program().parseAsync()
