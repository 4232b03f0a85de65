/**
 * The note every `book-service` command's `--help` ends with: where its configuration comes from.
 * Starts with a line break, so it stands apart from the options (or from an example before it).
 */
export const CONFIGURATION_HELP =
  '\nConfiguration comes from environment variables and a .env file in the working directory\n' +
  '(see .env.example); the process environment wins over the file.'
