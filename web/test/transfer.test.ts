import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { call } from '../../test/support/client.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../test/support/server.js'
import { formatBooks } from '../../src/book/file-format.js'
import { assertNoProblems, launchBrowser, openSignedIn, skip, violationsInBothThemes, watchPage, type PageWatch } from './support/browser.js'

/**
 * Import and export from the page against the real service: an export is the collection in the
 * command line's formats; an import checks every row before sending anything, lists the invalid
 * ones by line, then stores the rest with progress and a summary.
 */
describe('the web page: import and export', { timeout: 180_000 }, () => {
  let directory: string
  let server: RunningServer
  let browser: Browser
  let page: Page
  let watch: PageWatch

  async function books(): Promise<{ id: number; title: string; author: string; year: number }[]> {
    return (await call(`${server.url}/books`)).body.data
  }

  before(async () => {
    if (skip) return
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
    browser = await launchBrowser()
    page = await (await browser.newContext({ acceptDownloads: true })).newPage()
    watch = await watchPage(page, server.url)
    for (const [title, author, year] of [
      ['Dune, the first', 'Frank "the" Herbert', 1965],
      ['Two\nlines', 'Борхес', -44]
    ] as const) {
      assert.equal((await call(`${server.url}/book`, 'POST', { title, author, year })).status, 201)
    }
    await openSignedIn(page, `${server.url}/#/transfer`, { sub: 'admin', role: 'admin' })
    await page.getByRole('heading', { level: 1, name: 'Import and export' }).waitFor()
  })

  after(async () => {
    if (skip) return
    await browser?.close()
    await server?.stop()
    removeDirectory(directory)
  })

  test('export: every book as book-service export writes it, in CSV and NDJSON', { skip }, async () => {
    const stored = await books()
    for (const [button, format] of [
      ['Download CSV', 'csv'],
      ['Download NDJSON', 'ndjson']
    ] as const) {
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: button }).click()])
      assert.match(download.suggestedFilename(), new RegExp(`^books-\\d{4}-\\d{2}-\\d{2}\\.${format}$`))
      assert.equal(readFileSync(await download.path()).toString('utf8'), formatBooks(stored, format, true))
    }
    await page.getByRole('status').filter({ hasText: 'Exported 2 books.' }).waitFor()
  })

  test('import: invalid rows are listed by line and nothing is sent', { skip }, async () => {
    const file = 'title,author,year\nKindred,Octavia E. Butler,1979\n"  ",Nobody,2000\nBeloved,Toni Morrison,19x7\nOnly two,fields\n'
    await page.getByLabel('File to import').setInputFiles({ name: 'catalogue.csv', mimeType: 'text/csv', buffer: Buffer.from(file) })
    const report = page.locator('.import-invalid')
    await report.getByText('3 rows are invalid; nothing will be sent until they are corrected.').waitFor()
    assert.deepEqual(await report.locator('li').allInnerTexts(), [
      'Line 3: Title must contain more than spaces, and no character that cannot be stored.',
      'Line 4: Year must be a whole number.',
      'Line 5: has 2 fields, the header has 3'
    ])
    assert.equal(await page.getByRole('button', { name: /^Import/ }).count(), 0)
    assert.deepEqual(watch.requests().filter((request) => request.startsWith('POST')), [])
  })

  test('import: a malformed CSV lists every bad row in plain words, as book-service import does', { skip }, async () => {
    const file = 'title,author,year\nDune,Frank Herbert,19x5\n"Emma"X,Jane Austen,1815\nPersuasion,,1817\nKindred,Octavia E. Butler,1979,extra\nBeloved,Toni Morrison,20000\n'
    await page.getByLabel('File to import').setInputFiles({ name: 'five-bad-rows.csv', mimeType: 'text/csv', buffer: Buffer.from(file) })
    const report = page.getByRole('alert').filter({ hasText: '5 rows are invalid; nothing will be sent until they are corrected.' })
    await report.waitFor()
    assert.deepEqual(await report.getByRole('listitem').allInnerTexts(), [
      'Line 2: Year must be a whole number.',
      'Line 3: has more after a closing quote (a quote inside a quoted field is written twice: "")',
      'Line 4: Author is required.',
      'Line 5: has 4 fields, the header has 3',
      'Line 6: Year must be from -9999 to 9999.'
    ])
    assert.equal(await page.getByText(/Invalid Closing Quote|cannot be read/).count(), 0)
    assert.deepEqual(watch.requests().filter((request) => request.startsWith('POST')), [])
    assert.deepEqual(await violationsInBothThemes(page, 'import errors'), [])
  })

  test('import: a valid file is sent row by row, with progress and a summary', { skip }, async () => {
    const lines = ['{"title":"Kindred","author":"Octavia E. Butler","year":1979}']
    for (let index = 0; index < 11; index++) lines.push(JSON.stringify({ id: 999, title: `Imported ${index}`, author: 'Batch', year: 2000 + index }))
    await page.getByLabel('File to import').setInputFiles({ name: 'books.ndjson', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines.join('\n') + '\n') })
    await page.getByText('12 books are ready to import.').waitFor()
    await page.getByRole('button', { name: 'Import 12 books' }).click()
    await page.locator('.import-summary').getByText('Stored 12 books.').waitFor()
    assert.equal(await page.getByText('12 of 12 sent').count(), 1)
    assert.equal(await page.getByRole('progressbar', { name: 'Import progress' }).getAttribute('value'), '12')
    const titles = (await books()).map((book) => book.title)
    assert.equal(titles.length, 14)
    assert.ok(titles.includes('Kindred') && titles.includes('Imported 10'))
    assert.equal(watch.requests().filter((request) => request === 'POST /book').length, 12)
    assertNoProblems(watch)
  })
})
