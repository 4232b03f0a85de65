import { execFileSync, spawnSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * What the container tests share: Podman and podman-compose as the tests run them (with the
 * settings scripts/image-test.sh exports: CONTAINERS_CONF, BASE_IMAGE, IMAGE), and waiting for an
 * address to answer.
 */

/** The image under test (scripts/image.sh tags it). */
export const IMAGE = `${process.env.IMAGE ?? 'localhost/book-service'}:latest`
/** The local stand-in for node:24-bookworm-slim (scripts/base-image.sh). */
export const BASE_IMAGE = process.env.BASE_IMAGE ?? 'localhost/node:24-bookworm-slim'

/** The repository's root folder. */
export const ROOT = new URL('../../', import.meta.url).pathname

/**
 * Runs `podman ARGS…` and returns its standard output.
 *
 * @param timeoutMs - most time it may take (default 2 minutes); then it is killed.
 * @throws {Error} when it exits non-zero or times out, with its standard error in the message.
 */
export function podman(args: string[], timeoutMs = 120_000): string {
  return run('podman', args, timeoutMs)
}

/**
 * Runs a command in the repository folder and returns its standard output.
 *
 * @throws {Error} when it exits non-zero or takes over `timeoutMs`, with its output in the message.
 */
export function run(command: string, args: string[], timeoutMs: number, env: Record<string, string> = {}): string {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024
  })
  if (result.status !== 0) {
    const why = result.error ? result.error.message : `exit ${result.status ?? result.signal}`
    throw new Error(`${command} ${args.join(' ')}: ${why}\n${result.stdout}\n${result.stderr}`)
  }
  return result.stdout
}

/** What a container wrote so far, standard output and standard error (`podman logs` splits them). */
export function logs(container: string): string {
  const result = spawnSync('podman', ['logs', container], { encoding: 'utf8', timeout: 60_000 })
  return `${result.stderr}${result.stdout}`
}

/** Runs `podman ARGS…` for clean-up: never throws (what it removes may not exist). */
export function podmanQuietly(args: string[]): void {
  spawnSync('podman', args, { stdio: 'ignore', timeout: 60_000 })
}

/** Whether `podman healthcheck run NAME` passes (the image's HEALTHCHECK command exits 0). */
export function healthCheckPasses(container: string): boolean {
  return spawnSync('podman', ['healthcheck', 'run', container], { stdio: 'ignore', timeout: 60_000 }).status === 0
}

/** `podman inspect --format TEMPLATE NAME`, trimmed. */
export function inspect(name: string, template: string): string {
  return execFileSync('podman', ['inspect', '--format', template, name], { encoding: 'utf8' }).trim()
}

/**
 * Polls `check` every 500 ms until it returns true.
 *
 * @throws {Error} naming `what` after `timeoutMs`.
 */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await Promise.resolve().then(check).catch(() => false)) return
    await sleep(500)
  }
  throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`)
}

/** Whether GET `url` answers 200 within 5 s. */
export async function answers(url: string): Promise<boolean> {
  const response = await fetch(url, { signal: AbortSignal.timeout(5_000) })
  await response.arrayBuffer()
  return response.status === 200
}
