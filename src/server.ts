#!/usr/bin/env node
import './runtime.js' // first: exits with one line on an unsupported Node.js
import { serve } from './serve.js'

// `npm start` entry: the same start-up as `book-service serve` (src/serve.ts).
await serve()
