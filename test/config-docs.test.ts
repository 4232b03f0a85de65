import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { ENV_EXAMPLE_PATH, CONFIGURATION_PATH, configTable, envExample, readmeWithConfigTable } from '../scripts/config-docs.js'
import { loadConfig, settings } from '../src/config.js'

const regenerate = 'out of date with the settings table in src/config.ts: run `npm run docs:config`'

test('the configuration table of docs/configuration.md is the one the settings table produces', () => {
  const readme = readFileSync(CONFIGURATION_PATH, 'utf8')
  assert.equal(readme, readmeWithConfigTable(readme), `docs/configuration.md ${regenerate}`)
  for (const name of Object.keys(settings)) assert.match(readme, new RegExp(`^\\| \`${name}\` \\|`, 'm'))
})

test('.env.example is the one the settings table produces', () => {
  assert.equal(readFileSync(ENV_EXAMPLE_PATH, 'utf8'), envExample(), `.env.example ${regenerate}`)
})

test('a table that changed is noticed (a new setting, a changed meaning)', () => {
  const readme = readFileSync(CONFIGURATION_PATH, 'utf8')
  const changed = { ...settings, NEW_SETTING: { ...settings.PORT, description: 'Something new.' } }
  assert.notEqual(readmeWithConfigTable(readme, changed), readme)
  assert.notEqual(envExample(changed), readFileSync(ENV_EXAMPLE_PATH, 'utf8'))
  assert.match(configTable(changed), /^\| `NEW_SETTING` \| `8080` \| .* \| Something new\. \|$/m)
})

test('every value .env.example shows is the default the service really applies', () => {
  const shown = Object.fromEntries(
    [...envExample().matchAll(/^# ([A-Z_]+)=(.*)$/gm)].map((match) => [match[1]!, match[2]!])
  )
  assert.deepEqual(Object.keys(shown).sort(), Object.keys(settings).sort())
  // Uncommenting every line of .env.example must change nothing.
  assert.deepEqual(loadConfig(shown, false), loadConfig({}, false))
})
