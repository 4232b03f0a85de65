import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { SqliteDatabase } from '../src/storage/sqlite/sqlite-database.js'

/**
 * Writes the API document (`GET /openapi.json`) to a file, as the service serves it: the app is
 * built in-process on an in-memory SQLite database and asked for it, with no port opened and no
 * network used. `npm run lint` lints the file with Spectral and Redocly (docs/api.md "Programs").
 *
 * Usage: `node --import tsx scripts/api-document.ts [file]` (default `dist/openapi.json`).
 */

/** Where the document is written when no file is named. */
export const DEFAULT_DOCUMENT_PATH = fileURLToPath(new URL('../dist/openapi.json', import.meta.url))

/** The served API document, built in-process. */
export async function servedDocument(): Promise<object> {
  const config = { ...loadConfig({ LOG_LEVEL: 'silent' }, false), SECRET_TOKEN: 'api-document', AUTH_PASSWORD: 'api-document-password' }
  const app = await buildApp({ config, database: await SqliteDatabase.open(':memory:') })
  try {
    return (await app.inject({ url: '/openapi.json' })).json() as object
  } finally {
    await app.close()
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const path = resolve(process.argv[2] ?? DEFAULT_DOCUMENT_PATH)
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, `${JSON.stringify(await servedDocument(), null, 2)}\n`)
}
