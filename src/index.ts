/**
 * The package entry (`book-service` in package.json "main"/"types"): the typed client and the
 * Book and Account types. Importing it loads no server code.
 */
export { BookServiceError, createClient } from './client.js'
export type { Account, AccountChange, AccountInput, Book, BookClient, BookInput, BookPatch, ClientOptions, LoginResult, Role } from './client.js'
