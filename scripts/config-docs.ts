import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { settings, type Setting } from '../src/config.js'

/**
 * The configuration documents generated from the `settings` table of src/config.ts, the one list
 * of variables: the table between the markers in docs/configuration.md and `.env.example`. `npm run
 * docs:config` rewrites both; test/config-docs.test.ts fails when either differs from the table.
 */

/** The markers in docs/configuration.md between which the table is generated. */
export const START_MARKER = '<!-- config:start -->'
export const END_MARKER = '<!-- config:end -->'

export const CONFIGURATION_PATH = fileURLToPath(new URL('../docs/configuration.md', import.meta.url))
export const ENV_EXAMPLE_PATH = fileURLToPath(new URL('../.env.example', import.meta.url))

type Settings = Record<string, Setting>

/** The default of a setting as the service applies it, or undefined when it has none. */
function defaultOf(setting: Setting): string | undefined {
  const value = (setting.schema as { default?: unknown }).default
  return value === undefined ? undefined : String(value)
}

/** The Default column: the value in backticks, `(generated)` for secrets without one, else `(unset)`. */
function defaultCell(setting: Setting): string {
  const value = defaultOf(setting)
  if (value !== undefined) return `\`${value}\``
  return setting.secret ? '(generated)' : '(unset)'
}

const cell = (text: string) => text.replace(/\|/g, '\\|')

/** The Markdown table of every setting: Variable, Default, Accepts, Meaning. */
export function configTable(table: Settings = settings): string {
  const rows = Object.entries(table).map(
    ([name, setting]) => `| \`${name}\` | ${defaultCell(setting)} | ${cell(setting.accepts)} | ${cell(setting.description)} |`
  )
  return ['| Variable | Default | Accepts | Meaning |', '|---|---|---|---|', ...rows].join('\n')
}

/** `readme` with the text between the markers replaced by {@link configTable}. */
export function readmeWithConfigTable(readme: string, table: Settings = settings): string {
  const start = readme.indexOf(START_MARKER)
  const end = readme.indexOf(END_MARKER)
  if (start === -1 || end < start) throw new Error(`docs/configuration.md has no ${START_MARKER} … ${END_MARKER} markers`)
  return `${readme.slice(0, start + START_MARKER.length)}\n${configTable(table)}\n${readme.slice(end)}`
}

/**
 * `.env.example`: every setting, commented out at its default, with its meaning and accepted
 * values, so copying it to `.env` changes nothing until a line is uncommented.
 */
export function envExample(table: Settings = settings): string {
  const header = [
    '# book-service configuration. Copy to .env (read from the working directory at start-up; the',
    '# process environment wins) and uncomment what you change. An empty value counts as unset.',
    '# Generated from the settings table in src/config.ts by `npm run docs:config`: do not edit by hand.'
  ]
  const blocks = Object.entries(table).map(([name, setting]) => {
    const value = defaultOf(setting)
    const fallback = value === undefined ? (setting.secret ? ' Default: generated.' : ' Default: unset.') : ''
    return [`# ${setting.description}`, `# Accepts ${setting.accepts}.${fallback}`, `# ${name}=${value ?? ''}`].join('\n')
  })
  return `${[header.join('\n'), ...blocks].join('\n\n')}\n`
}

/** Rewrites docs/configuration.md's table and `.env.example` from the settings table (`npm run docs:config`). */
function main(): void {
  writeFileSync(CONFIGURATION_PATH, readmeWithConfigTable(readFileSync(CONFIGURATION_PATH, 'utf8')))
  writeFileSync(ENV_EXAMPLE_PATH, envExample())
  console.log('docs:config: wrote the docs/configuration.md configuration table and .env.example')
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main()
