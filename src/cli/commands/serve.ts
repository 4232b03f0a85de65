import { Command } from 'commander'
import { CONFIGURATION_HELP } from '../help.js'
import { serve } from '../start-up.js'

/** `book-service serve`, the default command: {@link serve}. */
export function serveCommand(): Command {
  return new Command('serve')
    .description('start the service (the default command); stops cleanly on SIGTERM/SIGINT')
    .addHelpText('after', CONFIGURATION_HELP)
    .action(serve)
}
