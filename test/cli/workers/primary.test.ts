import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { after, before, describe, test } from 'node:test'
import { authHeaders } from '../../support/app.js'
import { removeDirectory, SERVER_ENTRY, startServer, temporaryDirectory, type RunningServer } from '../../support/server.js'
import { processSkipReason } from '../../support/scope.js'

/** The pids of the processes that logged `listening at <url>`, in the order they did. */
function listeningPids(server: RunningServer): number[] {
  return server
    .stdout()
    .split('\n')
    .filter((line) => line.includes(`listening at ${server.url}`))
    .map((line) => (JSON.parse(line) as { pid: number }).pid)
}

/** The pids that logged a request line for `path`. */
function servingPids(server: RunningServer, path: string): Set<number> {
  const pids = server
    .stdout()
    .split('\n')
    .filter((line) => line.includes('"msg":"request"') && line.includes(`"path":"${path}"`))
    .map((line) => (JSON.parse(line) as { pid: number }).pid)
  return new Set(pids)
}

/** GET `path` on a connection of its own (so node:cluster hands each to the next worker). */
function getOnNewConnection(server: RunningServer, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { agent: false, headers: { connection: 'close' } }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, body }))
    })
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${path}: no answer within 10 s`)))
    req.on('error', reject)
    req.end()
  })
}

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** Starts WORKERS=2 and waits until both workers logged their listening line. */
async function startTwoWorkers(directory: string, env: Record<string, string> = {}): Promise<RunningServer> {
  const server = await startServer({ dataDirectory: directory, env: { WORKERS: '2', ...env }, timeoutMs: 30_000 })
  await waitFor('both workers listening', () => server.stdout().includes('every worker is listening'))
  return server
}

describe('WORKERS=2: a primary and two workers on one port', { skip: processSkipReason }, () => {
  let directory: string
  let server: RunningServer
  before(async () => {
    directory = temporaryDirectory()
    server = await startTwoWorkers(directory)
  })
  after(async () => {
    await server?.stop('SIGKILL')
    removeDirectory(directory)
  })

  /** `http_requests_total` of GET /healthz 200 in the service's /metrics. */
  const healthzCount = async () => {
    const metrics = await getOnNewConnection(server, '/metrics')
    assert.equal(metrics.status, 200)
    const line = metrics.body.split('\n').find((text) => text.startsWith('http_requests_total{method="GET",route="/healthz",status_code="200"}'))
    return Number(line?.split(' ').pop() ?? 0)
  }

  test('both workers answer, and /metrics counts the requests of both', async () => {
    // The log is written asynchronously (at most 200 ms late): wait for both workers' lines.
    await waitFor('both workers listening', () => listeningPids(server).length === 2)
    const workers = listeningPids(server)
    const before = await healthzCount()
    assert.equal(workers.length, 2)
    assert.ok(!workers.includes(server.process.pid!), 'the primary serves no request itself')
    const requests = 20
    for (let i = 0; i < requests; i++) assert.equal((await getOnNewConnection(server, '/healthz')).status, 200)
    await waitFor('the request lines', () => servingPids(server, '/healthz').size === 2)
    assert.deepEqual([...servingPids(server, '/healthz')].sort(), [...workers].sort())
    assert.equal(await healthzCount(), before + requests)
  })

  test('a SIGKILLed worker is replaced (logged with its signal) while the other keeps serving', async () => {
    const [victim, survivor] = listeningPids(server)
    process.kill(victim!, 'SIGKILL')
    // Served meanwhile by the survivor.
    for (let i = 0; i < 5; i++) assert.equal((await getOnNewConnection(server, '/healthz')).status, 200)
    await waitFor('a replacement worker', () => listeningPids(server).length === 3)
    const replacement = listeningPids(server)[2]!
    assert.ok(![victim, survivor].includes(replacement))
    const exitLine = server.stdout().split('\n').find((text) => text.includes('worker exited; starting a replacement'))
    assert.ok(exitLine, server.stdout())
    assert.deepEqual(
      (({ worker_pid, signal }) => ({ worker_pid, signal }))(JSON.parse(exitLine) as { worker_pid: number; signal: string }),
      { worker_pid: victim, signal: 'SIGKILL' }
    )
    assert.equal(alive(victim!), false)
  })

  test('SIGTERM stops every worker gracefully and the primary exits 0', async () => {
    const workers = listeningPids(server).filter(alive)
    assert.equal(workers.length, 2)
    assert.equal(await server.stop('SIGTERM'), 0, server.output())
    for (const pid of workers) assert.equal(alive(pid), false, `worker ${pid} still running`)
    const stopped = server.stdout().split('\n').filter((line) => line.includes('stopping: finishing in-flight requests'))
    assert.equal(stopped.length, 2, server.stdout())
  })
})

describe('WORKERS=2: the primary SIGKILLed while writes are in flight', { skip: processSkipReason }, () => {
  test('the workers answer every write they took on (none committed unanswered, none acknowledged lost), then exit 0', async () => {
    const directory = temporaryDirectory()
    const server = await startTwoWorkers(directory)
    const workers = listeningPids(server)
    after(() => {
      for (const pid of workers.filter(alive)) process.kill(pid, 'SIGKILL')
      removeDirectory(directory)
    })
    const body = JSON.stringify({ title: 'In flight', author: 'A', year: 2000 })
    /** One POST on a connection of its own: its id, or why it got none (`refused`: never taken on). */
    const post = () =>
      new Promise<number | 'refused' | 'reset'>((resolve) => {
        const req = request(`${server.url}/book`, { method: 'POST', agent: false, headers: { ...authHeaders(), 'content-type': 'application/json' } }, (response) => {
          let text = ''
          response.setEncoding('utf8')
          response.on('data', (chunk: string) => (text += chunk))
          response.on('end', () => resolve(response.statusCode === 201 ? (JSON.parse(text) as { data: { id: number } }).data.id : 'reset'))
          response.on('error', () => resolve('reset'))
        })
        req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? 'refused' : 'reset'))
        req.end(body)
      })
    // 16 writers, each posting until the service stops taking connections.
    let killed = false
    const writers = Array.from({ length: 16 }, async () => {
      const outcomes: Array<number | 'reset'> = []
      for (;;) {
        const outcome = await post()
        if (outcome === 'refused') return outcomes
        outcomes.push(outcome)
        if (killed && outcome === 'reset') return outcomes
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 400))
    server.process.kill('SIGKILL')
    killed = true
    const outcomes = (await Promise.all(writers)).flat()
    await waitFor('both workers to exit', () => workers.every((pid) => !alive(pid)))
    const acknowledged = outcomes.filter((outcome): outcome is number => typeof outcome === 'number')
    assert.ok(acknowledged.length > 0)

    const restarted = await startServer({ dataDirectory: directory })
    try {
      const stored = ((await (await fetch(`${restarted.url}/books`, { headers: authHeaders() })).json()) as { data: Array<{ id: number }> }).data.map((book) => book.id)
      assert.deepEqual(acknowledged.filter((id) => !stored.includes(id)), [], 'acknowledged but not stored')
      assert.deepEqual(stored.filter((id) => !acknowledged.includes(id)), [], 'stored but never answered: its answer was dropped')
    } finally {
      assert.equal(await restarted.stop(), 0)
    }
    // Each worker stopped as on SIGTERM, one line each.
    assert.equal(server.stdout().split('\n').filter((line) => line.includes('"signal":"disconnect"')).length, 2, server.stdout())
  })
})

test('SIGTERM while the workers are still starting: they stop, the primary exits 0', { skip: processSkipReason }, async () => {
  const directory = temporaryDirectory()
  try {
    const child = spawn(process.execPath, [SERVER_ENTRY], {
      cwd: directory,
      env: { PATH: process.env.PATH, WORKERS: '2', HOST: '127.0.0.1', PORT: '0', DATABASE_URL: `${directory}/books.db`, AUTH_PASSWORD: 'x'.repeat(12), SECRET_TOKEN: 'y'.repeat(40) },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')))
    // The primary has prepared the storage and forked; no worker has listened yet.
    await waitFor('the primary to fork', () => childrenOf(child.pid!).length === 2)
    child.kill('SIGTERM')
    assert.equal(await exited, 0, stdout)
  } finally {
    removeDirectory(directory)
  }
})

/** The pids of the child processes of `pid` (Linux `/proc`). */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

describe('WORKERS start-up failures', { skip: processSkipReason }, () => {
  test('a storage that cannot be opened: one clear line, exit 1, no worker started', () => {
    const directory = temporaryDirectory()
    try {
      const result = spawnSync(process.execPath, [SERVER_ENTRY], {
        cwd: directory,
        env: { PATH: process.env.PATH, WORKERS: '2', DATABASE_URL: '/proc/nope/books.db', LOG_LEVEL: 'info' },
        encoding: 'utf8',
        timeout: 20_000
      })
      assert.equal(result.status, 1, `${result.stdout}${result.stderr}`)
      assert.match(result.stderr, /^book-service: cannot .*\/proc\/nope.*\n$/)
      assert.doesNotMatch(result.stdout, /listening/)
    } finally {
      removeDirectory(directory)
    }
  })

  test('workers that cannot listen: the primary prints the reason once and exits 1 instead of respawning', async () => {
    const directory = temporaryDirectory()
    const blocker = await startServer({ dataDirectory: temporaryDirectory() })
    try {
      const result = spawnSync(process.execPath, [SERVER_ENTRY], {
        cwd: directory,
        env: { PATH: process.env.PATH, WORKERS: '2', HOST: '127.0.0.1', PORT: String(blocker.port), DATABASE_URL: `${directory}/books.db`, AUTH_PASSWORD: 'x'.repeat(12), SECRET_TOKEN: 'y'.repeat(40) },
        encoding: 'utf8',
        timeout: 30_000
      })
      assert.equal(result.status, 1, `${result.stdout}${result.stderr}`)
      const lines = result.stderr.trim().split('\n')
      assert.equal(lines.length, 1, result.stderr)
      assert.match(lines[0]!, /^book-service: cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/)
    } finally {
      await blocker.stop()
      removeDirectory(directory)
    }
  })

  test('WORKERS out of range: the configuration error line, exit 1', () => {
    const result = spawnSync(process.execPath, [SERVER_ENTRY], { env: { PATH: process.env.PATH, WORKERS: '0' }, encoding: 'utf8', timeout: 20_000 })
    assert.equal(result.status, 1)
    assert.equal(result.stderr, 'book-service: Invalid configuration: WORKERS must be an integer from 1 to 256, or auto (one per core available) (got "0")\n')
  })
})
