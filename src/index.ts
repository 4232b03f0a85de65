/**
 * The package entry (`book-service` in package.json "main"/"types"): the typed client and the
 * Book types. Importing it loads no server code.
 */
export { BookServiceError, createClient } from './client.js'
export type { Book, BookClient, BookInput, BookPatch, ClientOptions, LoginResult } from './client.js'
