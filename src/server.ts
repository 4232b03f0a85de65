#!/usr/bin/env node
import { serve } from './serve.js'

// `npm start` entry: the same start-up as `book-service serve` (src/serve.ts).
await serve()
