import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { call, eventually } from '../../test/support/client.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../test/support/server.js'
import { deliveredSeqs, startReceiver, type WebhookReceiver } from '../../test/support/webhook-receiver.js'
import { assertNoProblems, launchBrowser, openSignedIn, skip, violationsInBothThemes, watchPage, type PageWatch } from './support/browser.js'

/**
 * The webhooks view in Chromium, by keyboard and accessible names: the URL checked before sending
 * (not http(s), a special-purpose address naming WEBHOOK_ALLOW_PRIVATE); add an endpoint (its
 * secret shown once, which verifies the deliveries), the delivery log with a failure, replay; a
 * duplicate URL asked about first; edit; rotate the secret (shown once, with Copy); a 410
 * disabling it with its reason, enabling it again; a failing endpoint's last delivery and lag in
 * its row; axe-core finds no serious violation in either theme; it fits a phone; an editor has no
 * such view.
 */
describe('the web page: webhooks (admin)', { timeout: 240_000 }, () => {
  let directory: string
  let server: RunningServer
  let receiver: WebhookReceiver
  let browser: Browser
  let page: Page
  let watch: PageWatch
  const violations: string[] = []

  before(async () => {
    if (skip) return
    directory = temporaryDirectory()
    receiver = await startReceiver()
    server = await startServer({ dataDirectory: directory, env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1' } })
    browser = await launchBrowser()
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
    page = await context.newPage()
    watch = await watchPage(page, server.url)
  })
  after(async () => {
    if (skip) return
    await browser?.close()
    await server?.stop()
    await receiver?.close()
    removeDirectory(directory)
  })

  test('add by keyboard, secret once, delivery log, 410 disables, enable, replay; no axe violation', { skip }, async () => {
    await openSignedIn(page, `${server.url}/#/webhooks`, { sub: 'admin', role: 'admin' })
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
    await page.getByText('No endpoint yet.').waitFor()
    violations.push(...(await violationsInBothThemes(page, 'webhooks, empty')))

    // The page checks the URL before sending, and says why: not http(s); a special-purpose address.
    const urlField = page.getByLabel('URL', { exact: true })
    await urlField.fill('ftp://example.com/hook')
    await page.getByText('Enter an absolute http:// or https:// URL: this is not an http or https URL.').waitFor()
    await urlField.fill('http://10.1.2.3/hook')
    await page.getByText('10.1.2.3 is a special-purpose address (private-use (RFC 1918)): the service refuses it unless it runs with WEBHOOK_ALLOW_PRIVATE=true.').waitFor()
    violations.push(...(await violationsInBothThemes(page, 'URL checked')))
    await urlField.fill('')

    // By keyboard: the URL, Tab through the events, Enter submits.
    await page.getByLabel('URL', { exact: true }).focus()
    await page.keyboard.type(receiver.url)
    await page.getByRole('checkbox', { name: 'deleted' }).focus()
    await page.keyboard.press('Space')
    await page.getByLabel('Description (optional)').focus()
    await page.keyboard.type('search index')
    await page.keyboard.press('Enter')
    const dialog = page.getByRole('dialog', { name: 'The endpoint\'s signing secret' })
    await dialog.waitFor()
    violations.push(...(await violationsInBothThemes(page, 'secret dialog')))
    const secret = (await dialog.locator('[data-secret]').textContent())!
    assert.match(secret, /^whsec_/)
    receiver.secrets = [secret]
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })
    const row = page.locator('tr[data-webhook]')
    await row.getByText('created, updated').waitFor()
    assert.equal(await page.getByText(secret).count(), 0, 'the secret is not shown again')

    // One delivery failing once (500), then one succeeding: the log shows both outcomes.
    receiver.respond = (index) => ({ status: index === 0 ? 500 : 204 })
    await call(`${server.url}/book`, 'POST', { title: 'Dune', author: 'Frank Herbert', year: 1965 })
    await receiver.waitFor((received) => deliveredSeqs(received).length === 1)
    // Successes are recorded together a moment after they happen (docs/webhooks.md "Delivery").
    for (let tries = 0; tries < 100; tries++) {
      const { body } = await call(`${server.url}/webhooks/${(await call(`${server.url}/webhooks`)).body.data![0].id}/deliveries?status=succeeded`)
      if ((body.data as unknown[]).length > 0) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    await page.getByRole('button', { name: `Deliveries of ${receiver.url}` }).click()
    const log = page.getByRole('dialog', { name: `Deliveries of ${receiver.url}` })
    await log.locator('tr[data-status="succeeded"]').waitFor()
    assert.match((await log.locator('tr[data-status="succeeded"]').textContent())!, /book\.created.*2.*succeeded.*204/)
    violations.push(...(await violationsInBothThemes(page, 'delivery log')))

    // Replay from 0: the change again, with the same webhook-id.
    await log.getByLabel('Send again from change').fill('0')
    await log.getByRole('button', { name: 'Replay' }).click()
    await receiver.waitFor((received) => deliveredSeqs(received).length === 2)
    assert.equal(receiver.received.at(-1)!.headers['webhook-id'], receiver.received[1]!.headers['webhook-id'])
    await log.getByRole('button', { name: 'Close' }).click()
    await log.waitFor({ state: 'detached' })

    // The same URL again gets a word first; "Add it anyway" adds it; Delete asks, then deletes it.
    await urlField.fill(receiver.url)
    await page.getByRole('button', { name: 'Add an endpoint' }).click()
    await page.getByText(`An endpoint for ${receiver.url} exists already`).waitFor()
    assert.equal(await row.count(), 1, 'nothing sent before the person agrees')
    await page.getByRole('button', { name: 'Add it anyway' }).click()
    await page.getByRole('dialog', { name: 'The endpoint\'s signing secret' }).getByRole('button', { name: 'I have copied it' }).click()
    await page.waitForFunction(() => document.querySelectorAll('tr[data-webhook]').length === 2)
    await page.getByRole('button', { name: `Delete ${receiver.url}` }).last().click()
    const remove = page.getByRole('dialog', { name: `Delete ${receiver.url}` })
    await remove.getByRole('button', { name: 'Delete' }).click()
    await remove.waitFor({ state: 'detached' })
    await page.waitForFunction(() => document.querySelectorAll('tr[data-webhook]').length === 1)

    // Edit: the events and the description; the row shows them.
    await page.getByRole('button', { name: `Edit ${receiver.url}` }).click()
    const edit = page.getByRole('dialog', { name: `Edit ${receiver.url}` })
    await edit.getByRole('checkbox', { name: 'deleted' }).check()
    await edit.getByLabel('Description (optional)').fill('search index, all changes')
    await edit.getByRole('button', { name: 'Save' }).click()
    await edit.waitFor({ state: 'detached' })
    await row.getByText('created, updated, deleted').waitFor()
    await row.getByText('search index, all changes').waitFor()

    // Rotate the secret: asked first, the new one shown once with Copy; deliveries are signed with it.
    await page.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click()
    await page.getByRole('dialog', { name: `Rotate secret of ${receiver.url}` }).getByRole('button', { name: 'Rotate secret' }).click()
    const rotated = page.getByRole('dialog', { name: 'The endpoint\'s new signing secret' })
    const newSecret = (await rotated.locator('[data-secret]').textContent())!
    assert.match(newSecret, /^whsec_/)
    assert.notEqual(newSecret, secret)
    await rotated.getByRole('button', { name: 'Copy the secret' }).click()
    await rotated.getByText('Copied.').waitFor()
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), newSecret)
    violations.push(...(await violationsInBothThemes(page, 'rotated secret')))
    await rotated.getByRole('button', { name: 'Close' }).click()
    receiver.secrets = [newSecret]
    const before = receiver.received.length
    await call(`${server.url}/book`, 'POST', { title: 'Kindred', author: 'Octavia E. Butler', year: 1979 })
    await receiver.waitFor((received) => received.length > before && received.at(-1)!.payload !== undefined)

    // A 410 disables it, with the reason shown; Enable turns it back on.
    receiver.respond = () => ({ status: 410 })
    await call(`${server.url}/book`, 'POST', { title: 'Emma', author: 'Jane Austen', year: 1815 })
    await receiver.waitFor((received) => received.at(-1)?.status === 410)
    for (let tries = 0; tries < 50 && (await row.getByText(/Disabled: .*410/).count()) === 0; tries++) {
      await page.reload()
      await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor()
      await page.waitForTimeout(200)
    }
    await row.getByText(/Disabled: .*410/).waitFor()
    violations.push(...(await violationsInBothThemes(page, 'webhooks, one disabled')))
    await page.getByRole('button', { name: `Enable ${receiver.url}` }).click()
    await row.getByText('Enabled').waitFor()

    // Failing deliveries show in the row: the last one's state and answer, and how long since one succeeded.
    receiver.respond = () => ({ status: 500, headers: { 'retry-after': '3600' } })
    const failedBefore = receiver.received.length
    await call(`${server.url}/book`, 'POST', { title: 'Beloved', author: 'Toni Morrison', year: 1987 })
    await receiver.waitFor((received) => received.length > failedBefore && received.at(-1)!.status === 500)
    await eventually('the failing delivery shown', async () => {
      await page.reload()
      await row.locator('[data-delivery-status]').waitFor()
      return (await row.getByText(/Last delivery: change \d+, pending \(retrying\), 1 attempt \(HTTP 500/).count()) === 1
    })
    await row.getByText(/^No delivery succeeded for \d+ (second|minute)s?$/).waitFor()
    violations.push(...(await violationsInBothThemes(page, 'webhooks, one failing')))

    await page.setViewportSize({ width: 390, height: 844 })
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'fits a phone')
    violations.push(...(await violationsInBothThemes(page, 'webhooks on a phone')))
    assert.deepEqual(violations, [])
    assertNoProblems(watch)
  })

  test('without WEBHOOK_ALLOW_PRIVATE: a loopback URL is named before sending, and the 400 says why', { skip }, async () => {
    const strictDirectory = temporaryDirectory()
    const strict = await startServer({ dataDirectory: strictDirectory })
    try {
      const strictPage = await (await browser.newContext()).newPage()
      const strictWatch = await watchPage(strictPage, strict.url)
      await openSignedIn(strictPage, `${strict.url}/#/webhooks`, { sub: 'admin', role: 'admin' })
      await strictPage.getByText('No endpoint yet.').waitFor()
      await strictPage.getByLabel('URL', { exact: true }).fill('http://127.0.0.1:41010/hook')
      const note = '127.0.0.1 is a special-purpose address (loopback): the service refuses it unless it runs with WEBHOOK_ALLOW_PRIVATE=true.'
      await strictPage.getByText(note).waitFor()
      await strictPage.getByRole('button', { name: 'Add an endpoint' }).click()
      await strictPage.getByRole('alert').getByText(/^The service refused this URL \(400 Invalid input\): 127\.0\.0\.1 is a special-purpose address \(loopback\)\..*WEBHOOK_ALLOW_PRIVATE=true\.$/).waitFor()
      assert.deepEqual((await call(`${strict.url}/webhooks`)).body.data, [])
      assert.deepEqual(strictWatch.problems().filter((problem) => !/status of 400 .*\/webhooks/.test(problem)), [])
    } finally {
      await strict.stop()
      removeDirectory(strictDirectory)
    }
  })

  test('an editor has no Webhooks view', { skip }, async () => {
    const editorPage = await (await browser.newContext()).newPage()
    await openSignedIn(editorPage, `${server.url}/#/webhooks`, { sub: 'someone', role: 'editor' })
    await editorPage.getByText('Your account is not allowed to do this.').waitFor()
    assert.equal(await editorPage.getByRole('link', { name: 'Webhooks' }).count(), 0)
  })
})
