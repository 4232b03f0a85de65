import { spawn } from 'node:child_process'
import { CLI_ENTRY } from './server.js'

/** What a run of the built command line gave. */
export interface CliRun {
  code: number | null
  stdout: string
  stderr: string
}

/**
 * Runs the built `book-service` with `args` in `cwd` and only `env` (plus PATH and
 * `LOG_LEVEL=warn`), with `input` on its standard input (none when undefined); rejects when it
 * has not exited after `timeoutMs` (default 20 s).
 */
export function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string; timeoutMs?: number }
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_ENTRY, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe']
    })
    if (options.input !== undefined) child.stdin!.end(options.input)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`book-service ${args.join(' ')} did not exit:\n${stdout}${stderr}`))
    }, options.timeoutMs ?? 20_000)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}
