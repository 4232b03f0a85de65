import { Command } from 'commander'
import { packageVersion } from '../config.js'
import { backupCommand } from './commands/backup.js'
import { exportCommand } from './commands/export.js'
import { historyCommand } from './commands/history.js'
import { importCommand } from './commands/import.js'
import { migrateCommand } from './commands/migrate.js'
import { restoreCommand } from './commands/restore.js'
import { serveCommand } from './commands/serve.js'
import { tokenCommand } from './commands/token.js'
import { userCommand } from './commands/user.js'
import { watchCommand } from './commands/watch.js'
import { CONFIGURATION_HELP } from './help.js'

/**
 * The `book-service` command line (commander), run by src/book-service.ts: one command per module
 * of ./commands, each registered here the same way, in the order `--help` lists them: `serve`
 * (the default), `token [--sub NAME] [--ttl SECONDS]`, `migrate`, `backup FILE`, `restore FILE`,
 * `export [--format F] [--output FILE]`, `import FILE [--format F] [--keep-ids]`,
 * `user add|list|set-role|passwd|remove`, `watch [--url URL] [--token T] [--after N]` and
 * `history ID [--json] [--url URL] [--token T]`, each
 * with `--help` and `--version`. Exits 1 with one line on stderr on a bad option or configuration.
 */
export function program(): Command {
  const program = new Command('book-service')
    .description('HTTP + JSON book records service')
    .version(packageVersion)
    .addHelpText('after', CONFIGURATION_HELP)
  const commands = [
    serveCommand(),
    tokenCommand(),
    migrateCommand(),
    backupCommand(),
    restoreCommand(),
    exportCommand(),
    importCommand(),
    userCommand(),
    watchCommand(),
    historyCommand()
  ]
  for (const command of commands) {
    program.addCommand(command.version(packageVersion), { isDefault: command.name() === 'serve' })
  }
  return program
}
