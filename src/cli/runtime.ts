/**
 * The Node.js lines this service supports: the maintained ones (22, 24 and 26), as
 * package.json `engines.node` says. Developed and benchmarked on 24.
 *
 * Imported first by each entry point (`src/start.ts`, `src/book-service.ts`): its body runs before
 * any other module of the service is evaluated, so on an unsupported Node.js the process prints one
 * line naming the versions it needs and exits 1, never reaching the native SQLite binding (which
 * crashes on older lines instead of failing cleanly). On a supported line it turns on the module
 * compile cache, which makes every later start faster; the entries import the rest of the service
 * with `import()` after this, since statically imported ES modules are compiled before it runs.
 */
import module from 'node:module'

/** Major versions of the supported Node.js lines. */
export const SUPPORTED_NODE_LINES: readonly number[] = [22, 24, 26]

/** Whether a Node.js version string (`process.version`, e.g. `v24.21.0`) is on a supported line. */
export function isSupportedNode(version: string): boolean {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1])
  return SUPPORTED_NODE_LINES.includes(major)
}

/** The one line an unsupported runtime gets, e.g. `… Node.js v20.20.2 is not supported; run it on Node.js 22, 24 or 26 …`. */
export function unsupportedNodeMessage(version: string): string {
  const lines = SUPPORTED_NODE_LINES.join(', ').replace(/, (\d+)$/, ' or $1')
  return `book-service: Node.js ${version} is not supported; run it on Node.js ${lines} (npm start and npm test bring Node.js 24 themselves)\n`
}

if (!isSupportedNode(process.version)) {
  process.stderr.write(unsupportedNodeMessage(process.version))
  process.exit(1)
}
// Node >= 22.1; a no-op when NODE_DISABLE_COMPILE_CACHE is set.
module.enableCompileCache?.()
