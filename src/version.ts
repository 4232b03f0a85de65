import { readFileSync } from 'node:fs'

/** The package's version (package.json `version`), shown by `--version` and in the API document. */
export const packageVersion: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version
