import { Command } from 'commander'
import { packageVersion } from '../config.js'
import { apiTokenCommand } from './commands/api-token.js'
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
import { webhooksCommand } from './commands/webhooks.js'
import { CONFIGURATION_HELP } from './help.js'

/**
 * The `book-service` command line (commander), run by src/book-service.ts: one command per module
 * of ./commands, each registered here the same way, in the order `--help` lists them: `serve`
 * (the default), `token [--sub NAME] [--ttl SECONDS]`, `migrate`, `backup FILE`, `restore FILE`,
 * `export [--format F] [--output FILE]`, `import FILE [--format F] [--keep-ids]`,
 * `user add|list|set-role|passwd|remove`, `api-token create|list|revoke`, `watch [--url URL] [--token T] [--after N]` and
 * `webhooks list|add|remove|deliveries` and `history ID [--json] [--url URL] [--token T]`, each
 * with `--help` and `--version`. Exits 1 with one line on stderr on a bad option or configuration;
 * an unknown command or option, or a missing argument, gets commander's line and one more naming
 * the commands (or where the options are listed).
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
    apiTokenCommand(),
    watchCommand(),
    webhooksCommand(),
    historyCommand()
  ]
  for (const command of commands) {
    program.addCommand(command.version(packageVersion), { isDefault: command.name() === 'serve' })
  }
  // A first word that names no command goes to the default command (`serve`) as an argument,
  // which would then say "too many arguments for 'serve'": name it as the unknown command it is.
  program.hook('preSubcommand', (parent, command) => {
    const word = parent.args[0]
    if (command.name() === 'serve' && word !== undefined && word !== 'serve' && !word.startsWith('-')) {
      parent.error(`error: unknown command '${word}'`, { code: 'commander.unknownCommand' })
    }
  })
  for (const command of [program, ...commands]) explainErrors(command, program)
  return program
}

/**
 * After commander's own error line (`error: unknown command 'frobnicate'`, `error: unknown option
 * '--frob'`, a missing argument), one line on what there is: the program's commands for the
 * program and its default command, a command's own subcommands (`user`), else where its options
 * are listed. Applied to `command` and every subcommand under it.
 */
function explainErrors(command: Command, program: Command): void {
  const path = (target: Command): string => (target.parent ? `${path(target.parent)} ${target.name()}` : target.name())
  const list = (parent: Command) => parent.commands.map((sub) => sub.name()).join(', ')
  if (command === program || command.name() === 'serve') {
    command.showHelpAfterError(`commands: ${list(program)} (serve is the default); ${program.name()} COMMAND --help for its options`)
  } else if (command.commands.length > 0) {
    command.showHelpAfterError(`${path(command)} commands: ${list(command)}; ${path(command)} COMMAND --help for its options`)
  } else {
    command.showHelpAfterError(`${path(command)} --help lists its options`)
  }
  for (const sub of command.commands) if (command !== program) explainErrors(sub, program)
}
