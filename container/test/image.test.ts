import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { IMAGE, ROOT, answers, healthCheckPasses, inspect, logs, podman, podmanQuietly, waitFor } from './podman.js'
import { freePort } from '../../test/support/server.js'

/**
 * The image (Containerfile, docs/container.md "Container") run as a user runs it: the README's Podman
 * commands start a container with a named volume at /data, on the host's network at a free port
 * (container/containers.conf). In order: the first start prints the generated password (the
 * README's `podman logs` line shows it); the README's curl walk-through, logged in with the
 * container's password as the README says, prints what the README shows; the service is PID 1 and not root; the health check passes; `podman stop`
 * (SIGTERM, then SIGKILL after 10 s) ends it with exit code 0; a new container on the same volume
 * serves the same books with the same password; the API document page, the metrics and the
 * command line work with the pruned dependencies.
 */
const RUN = `book-service-test-${process.pid}`
const VOLUME = `${RUN}-data`
const FIRST = `${RUN}-first`
const SECOND = `${RUN}-second`

// The README and its container page (docs/container.md), where the Podman commands are.
const README = ['../../README.md', '../../docs/container.md'].map((path) => readFileSync(new URL(path, import.meta.url), 'utf8')).join('\n')

/** The README's `sh` block containing `marker`, and the plain block after it (what it prints). */
function readmeExample(marker: string): { script: string; shown: string } {
  const blocks = [...README.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((match) => ({ lang: match[1]!, text: match[2]! }))
  const at = blocks.findIndex((block) => block.lang === 'sh' && block.text.includes(marker))
  assert.ok(at >= 0 && blocks[at + 1]?.lang === '', `the README has an example with ${marker} and its output`)
  return { script: blocks[at]!.text, shown: blocks[at + 1]!.text }
}

/**
 * The README's Podman commands (docs/container.md "Container", the block with `CONTAINERS_CONF`) as written,
 * with this test's free port, container name and volume in place of 8080, `book-service` and
 * `book-service-data`: `run` without its `npm run image` (scripts/image-test.sh has just run it),
 * then `logs` once the service answers.
 */
function readmePodman(name: string, port: number): { run: string; logs: string; login: string } {
  const blocks = [...README.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((match) => match[2]!)
  const commands = blocks.find((block) => block.includes('export CONTAINERS_CONF='))
  const login = blocks.find((block) => block.includes('podman exec book-service cat /data/auth_password'))
  assert.ok(commands && login, 'the README has the Podman commands and the container login')
  const lines = commands.trimEnd().split('\n')
  assert.equal(lines[0], 'npm run image')
  const ours = (text: string) =>
    text
      .replaceAll('book-service-data', VOLUME)
      .replaceAll('--name book-service ', `--name ${name} `)
      .replaceAll(/podman (logs|exec) book-service /g, `podman $1 ${name} `)
      .replaceAll('PORT=8080', `PORT=${port}`)
      .replaceAll('localhost:8080', `127.0.0.1:${port}`)
  return {
    run: ours(lines.filter((line) => !line.startsWith('podman logs ') && line !== 'npm run image').join('\n')),
    logs: ours(lines.filter((line) => !line.startsWith('podman run ') && line !== 'npm run image').join('\n')),
    login: ours(login)
  }
}

/** Runs `script` with bash in the repository folder (so `$PWD/container/containers.conf` is found). */
function bash(script: string): string {
  return execFileSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    timeout: 120_000
  })
}

/** Starts the image as `name` on `port` with the test volume; resolves once /readyz answers. */
async function start(name: string, port: number): Promise<string> {
  podman(['run', '--detach', '--name', name, '--env', `PORT=${port}`, '--env', 'HOST=127.0.0.1', '--volume', `${VOLUME}:/data`, IMAGE])
  await waitFor(`${name} to answer on port ${port}`, () => answers(`http://127.0.0.1:${port}/readyz`))
  return `http://127.0.0.1:${port}`
}

/** A token for the admin account, from POST /login at `base`. */
async function login(base: string, password: string): Promise<string> {
  const response = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password })
  })
  assert.equal(response.status, 200)
  return ((await response.json()) as { data: { token: string } }).data.token
}

describe('the container image', () => {
  let base = ''
  let password = ''
  let books: unknown
  let readme: ReturnType<typeof readmePodman>

  before(async () => {
    // The README's commands start the first container (the volume is made by `podman run`).
    const port = await freePort()
    readme = readmePodman(FIRST, port)
    bash(readme.run)
    base = `http://127.0.0.1:${port}`
    await waitFor(`${FIRST} to answer on port ${port}`, () => answers(`${base}/readyz`))
  }, { timeout: 180_000 })

  after(() => {
    podmanQuietly(['rm', '--force', '--volumes', '--time', '0', FIRST, SECOND])
    podmanQuietly(['volume', 'rm', '--force', VOLUME])
  })

  test("the first start prints the generated password (the README's podman logs line), kept in the volume", () => {
    const output = logs(FIRST)
    const printed = /generated the login password for "admin": (\S+)\n.*it is kept in \/data\/auth_password/.exec(output)
    assert.ok(printed, `the password is printed:\n${output}`)
    password = printed[1]!
    assert.equal(bash(readme.logs), `book-service: generated the login password for "admin": ${password}\n`)
    assert.equal(podman(['exec', FIRST, 'cat', '/data/auth_password']).trim(), password)
  })

  test("the README's curl walk-through, logged in with the container's password, prints what the README shows", async () => {
    const walk = readmeExample('# 1. Log in')
    // Steps 2 to 6 as written, after the README's login with the password kept in the volume.
    const steps = walk.script.slice(walk.script.indexOf('# 2. '))
    const output = bash(`${readme.login}\n${steps.replaceAll('http://localhost:8080', base)}`)
    assert.equal(output.replaceAll('\r\n', '\n'), walk.shown)
    const response = await fetch(`${base}/books`, { headers: { authorization: `Bearer ${await login(base, password)}` } })
    books = ((await response.json()) as { data: unknown }).data
    assert.equal((books as unknown[]).length, 2)
  })

  test('the service is PID 1 and runs as a user other than root', () => {
    const command = JSON.parse(inspect(IMAGE, '{{json .Config.Cmd}}')) as string[]
    assert.deepEqual(podman(['exec', FIRST, 'cat', '/proc/1/cmdline']).split('\0').slice(0, -1), command)
    const uids = /^Uid:\s+(\d+)\s+(\d+)/m.exec(podman(['exec', FIRST, 'cat', '/proc/1/status']))
    assert.ok(uids, 'PID 1 has a Uid line')
    assert.notEqual(uids[1], '0')
    assert.notEqual(uids[2], '0')
    assert.match(inspect(IMAGE, '{{.Config.User}}'), /^[1-9]\d*(:\d+)?$/, 'the image names its user by number')
  })

  test("the image's health check reports healthy", () => {
    assert.ok(healthCheckPasses(FIRST), 'podman healthcheck run passes')
    assert.equal(inspect(FIRST, '{{.State.Health.Status}}'), 'healthy')
  })

  test('SIGTERM (podman stop, 10 s before SIGKILL) ends it with exit code 0', () => {
    podman(['stop', '--time', '10', FIRST], 60_000)
    // Still running after the 10 s, podman would have sent SIGKILL: exit code 137.
    assert.equal(inspect(FIRST, '{{.State.ExitCode}}'), '0')
    assert.match(logs(FIRST), /"signal":"SIGTERM".*stopping: finishing in-flight requests/)
  })

  test('a new container on the same volume serves the same books, with the same password', async () => {
    base = await start(SECOND, await freePort())
    assert.doesNotMatch(logs(SECOND), /generated the login password/)
    const response = await fetch(`${base}/books`, { headers: { authorization: `Bearer ${await login(base, password)}` } })
    assert.equal(response.status, 200)
    assert.deepEqual(((await response.json()) as { data: unknown }).data, books)
  })

  test('the API document page, the metrics and the command line work with the pruned dependencies', async () => {
    const page = await fetch(`${base}/docs/`)
    assert.equal(page.status, 200)
    assert.match(await page.text(), /swagger-ui/i)
    const script = await fetch(`${base}/docs/static/swagger-ui-bundle.js`)
    assert.equal(script.status, 200)
    assert.ok((await script.arrayBuffer()).byteLength > 100_000, 'the page script is served')
    const metrics = await fetch(`${base}/metrics`)
    assert.equal(metrics.status, 200)
    assert.match(await metrics.text(), /^# HELP /m)
    assert.match(podman(['exec', SECOND, 'book-service', 'user', 'list']), /^admin +admin +/m)
  })
})
