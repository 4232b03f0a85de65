/**
 * `npm run screenshots`: pictures of the real page for the README, made by starting the built
 * service on a new database, adding a few books through the API, and photographing the list in
 * Debian's chromium in the light and the dark theme: docs/web-page-light.png and
 * docs/web-page-dark.png (1280 × 720, device scale 1, so they stay small). Then a few changes of
 * "Dune" by two editors, a delete and a restore, and its History view (README "History and
 * restore"): docs/web-page-history-light.png and docs/web-page-history-dark.png. Then the
 * Webhooks view with one endpoint delivering and one failing (two receivers on 127.0.0.1, so the
 * service runs with WEBHOOK_ALLOW_PRIVATE=true): docs/web-page-webhooks-light.png; and the API
 * tokens view with two tokens, one used: docs/web-page-api-tokens-light.png.
 *
 * Last, the list on a phone (390 × 844, docs/web-page-phone.png) and the import of a CSV with
 * five bad rows (docs/web-page-import-errors.png).
 *
 * Names given after the command make only those pictures: `list`, `history`, `webhooks`,
 * `api-tokens`, `phone`, `import-errors` (`node --import tsx web/screenshots.ts webhooks api-tokens`).
 */
import { fileURLToPath } from 'node:url'
import { signToken } from '../test/support/app.js'
import { call } from '../test/support/client.js'
import { removeDirectory, startServer, temporaryDirectory } from '../test/support/server.js'
import { startReceiver } from '../test/support/webhook-receiver.js'
import { launchBrowser, openSignedIn } from './test/support/browser.js'

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url))

const BOOKS = [
  ['Dune', 'Frank Herbert', 1965],
  ['The Left Hand of Darkness', 'Ursula K. Le Guin', 1969],
  ['Ficciones', 'Jorge Luis Borges', 1944],
  ['Beloved', 'Toni Morrison', 1987],
  ['Kindred', 'Octavia E. Butler', 1979],
  ['One Hundred Years of Solitude', 'Gabriel García Márquez', 1967],
  ['The Master and Margarita', 'Mikhail Bulgakov', 1967],
  ['Things Fall Apart', 'Chinua Achebe', 1958],
  ['The Tale of Genji', 'Murasaki Shikibu', 1010],
  ['Invisible Cities', 'Italo Calvino', 1972],
  ['The Book of Disquiet', 'Fernando Pessoa', 1982],
  ['Pedro Páramo', 'Juan Rulfo', 1955]
] as const

const SHOTS = ['list', 'history', 'webhooks', 'api-tokens']
const wanted = process.argv.slice(2)
for (const name of wanted) if (!SHOTS.includes(name)) throw new Error(`screenshots: no picture named ${name} (${SHOTS.join(', ')})`)
const shoot = (name: string) => wanted.length === 0 || wanted.includes(name)

const directory = temporaryDirectory()
const server = await startServer({ dataDirectory: directory, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } })
const browser = await launchBrowser()
const receivers = [await startReceiver('/hooks/search-index'), await startReceiver('/hooks/shop')]
try {
  for (const [title, author, year] of BOOKS) {
    const { status } = await call(`${server.url}/book`, 'POST', { title, author, year })
    if (status !== 201) throw new Error(`POST /book answered ${status}`)
  }
  for (const colorScheme of shoot('list') ? (['light', 'dark'] as const) : []) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme })
    const page = await context.newPage()
    await openSignedIn(page, `${server.url}/#/books?sort=-year&limit=10`, { sub: 'admin', role: 'admin' })
    await page.getByText('Books 1 to 10 of 12').waitFor()
    await page.getByRole('checkbox', { name: 'Select “Beloved”' }).check()
    await page.getByRole('checkbox', { name: 'Select “The Book of Disquiet”' }).check()
    const path = `${DOCS}web-page-${colorScheme}.png`
    await page.screenshot({ path })
    console.log(`screenshots: wrote ${path}`)
    await context.close()
  }
  // Dune's history: two editors change it, one deletes it, the other brings it back.
  const as = async (sub: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${signToken({ sub, role: 'editor' })}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}`)
  }
  await as('bob', 'PUT', '/book/1', { title: 'Dune Messiah' })
  await as('alice', 'PUT', '/book/1', { year: 1969 })
  await as('bob', 'DELETE', '/book/1')
  await as('alice', 'POST', '/book/1/restore', { version: 1 })
  for (const colorScheme of shoot('history') ? (['light', 'dark'] as const) : []) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme })
    const page = await context.newPage()
    await openSignedIn(page, `${server.url}/#/books?sort=-year&limit=10`, { sub: 'admin', role: 'admin' })
    await page.getByRole('button', { name: 'History of “Dune”' }).click()
    await page.getByRole('dialog').locator('tr[data-version="5"]').waitFor()
    const path = `${DOCS}web-page-history-${colorScheme}.png`
    await page.screenshot({ path })
    console.log(`screenshots: wrote ${path}`)
    await context.close()
  }
  if (shoot('webhooks')) {
    // Two endpoints made before a change: the search index takes it, the shop answers 500 (retried in an hour).
    const [index, shop] = receivers as [(typeof receivers)[0], (typeof receivers)[0]]
    shop.respond = () => ({ status: 500, headers: { 'retry-after': '3600' } })
    await call(`${server.url}/webhooks`, 'POST', { url: index.url, description: 'search index' })
    await call(`${server.url}/webhooks`, 'POST', { url: shop.url, events: ['created', 'deleted'], description: 'shop front-end' })
    await call(`${server.url}/book`, 'POST', { title: 'Kindred', author: 'Octavia E. Butler', year: 1979 })
    await index.waitFor((received) => received.some((request) => request.status === 204))
    await shop.waitFor((received) => received.some((request) => request.status === 500))
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' })
    const page = await context.newPage()
    await openSignedIn(page, `${server.url}/#/webhooks`, { sub: 'admin', role: 'admin' })
    await page.locator('[data-delivery-status="pending"]').waitFor()
    await page.locator('[data-delivery-status="succeeded"]').waitFor()
    const path = `${DOCS}web-page-webhooks-light.png`
    await page.screenshot({ path })
    console.log(`screenshots: wrote ${path}`)
    await context.close()
  }
  if (shoot('api-tokens')) {
    const admin = { authorization: `Bearer ${signToken({ sub: 'admin', role: 'admin' })}`, 'content-type': 'application/json' }
    const make = async (body: unknown) => {
      const response = await fetch(`${server.url}/tokens`, { method: 'POST', headers: admin, body: JSON.stringify(body) })
      if (response.status !== 201) throw new Error(`POST /tokens answered ${response.status}`)
      return ((await response.json()) as { data: { token: string } }).data.token
    }
    const used = await make({ name: 'catalogue sync', role: 'reader', expires_in_days: 90 })
    await make({ name: 'nightly import', role: 'editor' })
    await fetch(`${server.url}/books`, { headers: { authorization: `Bearer ${used}` } })
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' })
    const page = await context.newPage()
    await openSignedIn(page, `${server.url}/#/tokens`, { sub: 'admin', role: 'admin' })
    await page.locator('tr[data-token]').nth(1).waitFor()
    await page.getByLabel('Name').fill('shop front-end')
    const path = `${DOCS}web-page-api-tokens-light.png`
    await page.screenshot({ path })
    console.log(`screenshots: wrote ${path}`)
    await context.close()
  }
  // A phone (390 × 844): the list as it opens, light theme (docs/web-page.md "Web page").
  if (shoot('phone')) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: 'light' })
    const page = await context.newPage()
    await openSignedIn(page, `${server.url}/#/books?sort=-year`, { sub: 'admin', role: 'admin' })
    await page.getByText(`Books 1 to ${BOOKS.length} of ${BOOKS.length}`).waitFor()
    const path = `${DOCS}web-page-phone.png`
    await page.screenshot({ path })
    console.log(`screenshots: wrote ${path}`)
    await context.close()
  }
  // The import of a CSV with five bad rows, each of another kind.
  if (shoot('import-errors')) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, colorScheme: 'light' })
    const page = await context.newPage()
    await openSignedIn(page, `${server.url}/#/transfer`, { sub: 'admin', role: 'admin' })
    const file = 'title,author,year\nDune,Frank Herbert,19x5\n"Emma"X,Jane Austen,1815\nPersuasion,,1817\nKindred,Octavia E. Butler,1979,extra\nBeloved,Toni Morrison,20000\n'
    await page.getByLabel('File to import').setInputFiles({ name: 'catalogue.csv', mimeType: 'text/csv', buffer: Buffer.from(file) })
    const report = page.getByRole('alert').filter({ hasText: '5 rows are invalid' })
    await report.waitFor()
    const path = `${DOCS}web-page-import-errors.png`
    await page.locator('section', { has: report }).screenshot({ path })
    console.log(`screenshots: wrote ${path}`)
    await context.close()
  }
} finally {
  await Promise.all(receivers.map((receiver) => receiver.close()))
  await browser.close()
  await server.stop()
  removeDirectory(directory)
}
