import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chromium, type Browser, type Page } from 'playwright-core'
import { signToken } from '../../../test/support/app.js'
import { browserScopeSkipReason } from '../../../test/support/scope.js'

/**
 * The page's browser tests run in Debian's chromium driven by playwright-core (never a
 * downloaded browser), as the docs page's test does; without it each test is skipped with the
 * reason printed. `TEST_CHROMIUM` points at another binary.
 */
export const CHROMIUM = process.env.TEST_CHROMIUM ?? '/usr/bin/chromium'
export const skip = browserScopeSkipReason ?? (existsSync(CHROMIUM) ? undefined : `${CHROMIUM} not found (apt-get install chromium): web page browser test skipped`)
if (skip) console.log(`# ${skip}`)

/** Starts headless chromium with a fresh temporary profile; contexts made from it share nothing. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
  })
}

/** The paths of the API: the only URLs whose HTTP error answers the page expects and handles. */
const API_PATH = /^\/(login|book|books|users)(\/|\?|$)/

/** What went wrong on a page: script errors, console errors, CSP violations, failed page assets. */
export interface PageWatch {
  /** Everything that should not have happened, one line each. */
  problems(): string[]
  /** The API requests the page sent, as `METHOD /path?query`. */
  requests(): string[]
}

/**
 * Watches `page` from now on. A console error is a problem unless it is the browser's own line
 * for an HTTP error answer of the API (a wrong password's 401, a conflict's 412, a service
 * without the change feed's 404), which the page handles and shows; any such line for the page
 * itself or its assets is a problem. CSP violations are reported by the `securitypolicyviolation`
 * event, listened to from before the page's first script.
 */
export async function watchPage(page: Page, baseUrl: string): Promise<PageWatch> {
  const problems: string[] = []
  const requests: string[] = []
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || 'inline'}`)
    })
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    const url = message.location().url
    const httpAnswer = /^Failed to load resource: the server responded with a status of \d+/.test(message.text())
    if (httpAnswer && url.startsWith(baseUrl) && API_PATH.test(url.slice(baseUrl.length))) return
    problems.push(`console error: ${message.text()} (${url})`)
  })
  page.on('requestfailed', (request) => {
    // Leaving the page or signing out aborts the requests in flight (the change feed's included).
    if (request.failure()?.errorText === 'net::ERR_ABORTED') return
    problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`)
  })
  page.on('request', (request) => {
    if (!request.url().startsWith(baseUrl)) problems.push(`request to another origin: ${request.url()}`)
    const path = request.url().slice(baseUrl.length)
    if (API_PATH.test(path)) requests.push(`${request.method()} ${path}`)
  })
  return { problems: () => [...problems], requests: () => [...requests] }
}

/** Signs in through the form and waits for the books. */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('heading', { level: 1, name: 'Books' }).waitFor()
}

/** Opens the page already signed in with a token for `claims` (kept for the tab, as the page keeps it). */
export async function openSignedIn(page: Page, url: string, claims: Record<string, unknown>): Promise<void> {
  const token = signToken({ exp: Math.floor(Date.now() / 1000) + 3600, ...claims })
  await page.addInitScript((value) => sessionStorage.setItem('book-service.token', value), token)
  await page.goto(url)
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: { target: unknown[] }[]
}

/**
 * Runs axe-core on the page as it is now (axe is evaluated through the DevTools protocol, which
 * the page's CSP does not govern, so it adds no violation of its own).
 *
 * @returns one line per serious or critical violation: the view, the rule, the elements.
 */
export async function seriousViolations(page: Page, view: string): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource)
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(context: Document): Promise<{ violations: unknown[] }> } }).axe.run(document)
    return result.violations
  })
  return (violations as AxeViolation[])
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${view}: ${violation.id} (${violation.impact}): ${violation.help} at ${JSON.stringify(violation.nodes.map((node) => node.target))}`)
}

/** Checks `page` with axe in the light and the dark theme; returns the serious and critical violations. */
export async function violationsInBothThemes(page: Page, view: string): Promise<string[]> {
  const found: string[] = []
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme })
    found.push(...(await seriousViolations(page, `${view} (${colorScheme})`)))
  }
  await page.emulateMedia({ colorScheme: 'light' })
  return found
}

/** Asserts the page went through everything without a problem. */
export function assertNoProblems(watch: PageWatch): void {
  assert.deepEqual(watch.problems(), [])
}
