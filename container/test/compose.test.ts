import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { BASE_IMAGE, IMAGE, ROOT, answers, healthCheckPasses, logs, podman, podmanQuietly, run, waitFor } from './podman.js'
import { freePort } from '../../test/support/server.js'

/**
 * compose.yaml as a user runs it (docs/container.md "Container"), with podman-compose: two book-service
 * instances on PostgreSQL behind HAProxy. The official postgres and haproxy images are replaced,
 * through POSTGRES_IMAGE and HAPROXY_IMAGE, by the local builds of Debian's packages that the
 * README's `npm run image:local-services` makes (container/local/; tags of this test's own), since
 * these machines reach no container registry. The secrets are in an env file made from
 * compose.env.example (COMPOSE_ENV_FILE), and none shows in podman-compose's output. The services
 * share the project's own network; only the balancer is published, on 127.0.0.1 and a free port.
 */
const PROJECT = `bookservicetest${process.pid}`
const POSTGRES_IMAGE = `localhost/${PROJECT}-postgres:15`
const HAPROXY_IMAGE = `localhost/${PROJECT}-haproxy:2.6`
const INSTANCES = [`${PROJECT}_book-1_1`, `${PROJECT}_book-2_1`]
const AUTH_PASSWORD = randomBytes(16).toString('hex')
const SECRETS = { SECRET_TOKEN: randomBytes(32).toString('hex'), AUTH_PASSWORD, POSTGRES_PASSWORD: randomBytes(16).toString('hex') }
const ENV_FOLDER = mkdtempSync(join(tmpdir(), 'book-service-compose-'))
const ENV_FILE = join(ENV_FOLDER, 'compose.env')

/** Runs podman-compose on compose.yaml for the test project, with the variables compose.env would give. */
function compose(args: string[], env: Record<string, string>): string {
  return run('podman-compose', ['--project-name', PROJECT, '--file', 'compose.yaml', ...args], 300_000, env)
}

/** compose.env.example with each secret set (PGPASSWORD the same as POSTGRES_PASSWORD), as the README says to. */
function envFile(): string {
  const values: Record<string, string> = { ...SECRETS, PGPASSWORD: SECRETS.POSTGRES_PASSWORD }
  const example = readFileSync(join(ROOT, 'compose.env.example'), 'utf8')
  const names = [...example.matchAll(/^([A-Z_]+)=$/gm)].map((match) => match[1]!)
  assert.deepEqual(names, Object.keys(values), 'compose.env.example asks for these secrets')
  return example.replace(/^([A-Z_]+)=$/gm, (_line, name: string) => `${name}=${values[name]}`)
}

/** GET `path` from inside `container` (the instances are not published): status and body. */
function getInside(container: string, path: string, token: string): { status: number; body: unknown } {
  const script = `fetch('http://127.0.0.1:8080${path}', { headers: { authorization: 'Bearer ${token}' } })
    .then(async (response) => console.log(JSON.stringify({ status: response.status, body: await response.json() })))`
  return JSON.parse(podman(['exec', container, 'node', '-e', script])) as { status: number; body: unknown }
}

/** The last lines each service of the project logged (the balancer's health-check transitions and requests among them), for a failure's message. */
function stateOfServices(): string {
  return [`${PROJECT}_balancer_1`, ...INSTANCES, `${PROJECT}_postgres_1`]
    .map((container) => `--- ${container}\n${logs(container).split('\n').slice(-40).join('\n')}`)
    .join('\n')
}

describe('compose.yaml: two instances on PostgreSQL behind HAProxy', () => {
  let balancer = ''
  let token = ''

  before(async () => {
    const readme = ['README.md', 'docs/container.md'].map((path) => readFileSync(join(ROOT, path), 'utf8')).join('\n')
    assert.match(readme, /^npm run image && npm run image:local-services$/m)
    assert.match(readme, /^POSTGRES_IMAGE=localhost\/book-service-postgres HAPROXY_IMAGE=localhost\/book-service-haproxy podman-compose up -d$/m)
    run('npm', ['run', '--silent', 'image:local-services'], 900_000, { POSTGRES_IMAGE, HAPROXY_IMAGE, BASE_IMAGE })
    writeFileSync(ENV_FILE, envFile(), { mode: 0o600 })
    const port = await freePort()
    const output = compose(['up', '-d'], {
      COMPOSE_ENV_FILE: ENV_FILE,
      BALANCER_PORT: `127.0.0.1:${port}`,
      BOOK_SERVICE_IMAGE: IMAGE,
      POSTGRES_IMAGE,
      HAPROXY_IMAGE
    })
    for (const [name, value] of Object.entries(SECRETS)) assert.ok(!output.includes(value), `podman-compose's output shows ${name}:\n${output}`)
    balancer = `http://127.0.0.1:${port}`
    for (const instance of INSTANCES) {
      await waitFor(`${instance} to be ready`, () => getInside(instance, '/readyz', '').status === 200)
    }
    await waitFor('the balancer to answer', () => answers(`${balancer}/readyz`))
    // The balancer takes an instance into its rotation on its own checks (container/haproxy.cfg:
    // every 2 s), so on a busy host its first answers may still be its own 503: log in as a client
    // would, again until it answers 200 (the last other answer and the services' logs are in the failure's message).
    let refused = ''
    const loggedIn = async () => {
      const response = await fetch(`${balancer}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: AUTH_PASSWORD }),
        signal: AbortSignal.timeout(10_000)
      })
      const body = await response.text()
      if (response.status !== 200) {
        refused = `${response.status}: ${body}`
        return false
      }
      token = (JSON.parse(body) as { data: { token: string } }).data.token
      return true
    }
    // At most 8 attempts, 3 s apart: within the 10 a minute LOGIN_RATE_LIMIT allows an address.
    for (let attempt = 1; !(await loggedIn()); attempt++) {
      if (attempt === 8) assert.fail(`POST /login through the balancer answered ${refused}\n${stateOfServices()}`)
      await sleep(3000)
    }
  }, { timeout: 900_000 })

  after(() => {
    const containers = podman(['ps', '--all', '--quiet', '--filter', `label=io.podman.compose.project=${PROJECT}`]).split('\n').filter(Boolean)
    if (containers.length > 0) podmanQuietly(['rm', '--force', '--volumes', '--time', '0', ...containers])
    podmanQuietly(['volume', 'rm', '--force', `${PROJECT}_postgres-data`])
    podmanQuietly(['network', 'rm', '--force', `${PROJECT}_default`])
    podmanQuietly(['rmi', '--force', POSTGRES_IMAGE, HAPROXY_IMAGE])
    rmSync(ENV_FOLDER, { recursive: true, force: true })
  })

  test('a book created through the balancer is read back through each instance', async () => {
    const created = await fetch(`${balancer}/book`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Kindred', author: 'Octavia E. Butler', year: 1979 })
    })
    assert.equal(created.status, 201)
    const book = ((await created.json()) as { data: { id: number } }).data
    for (const instance of INSTANCES) {
      assert.deepEqual(getInside(instance, `/book/${book.id}`, token), {
        status: 200,
        body: { status: 200, message: 'Book retrieved successfully', data: book }
      })
    }
  })

  test('the health checks of PostgreSQL and of the instances pass', () => {
    for (const container of [`${PROJECT}_postgres_1`, ...INSTANCES]) assert.ok(healthCheckPasses(container), container)
  })

  test('with one instance stopped, the balancer keeps serving reads and writes', async () => {
    podman(['stop', '--time', '10', INSTANCES[0]!], 60_000)
    // Round robin would send every other request to the stopped instance without the checks.
    for (let request = 0; request < 6; request++) {
      const response = await fetch(`${balancer}/books`, { headers: { authorization: `Bearer ${token}` } })
      assert.equal(response.status, 200)
      await response.arrayBuffer()
    }
    const created = await fetch(`${balancer}/book`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Dawn', author: 'Octavia E. Butler', year: 1987 })
    })
    assert.equal(created.status, 201)
  })
})
