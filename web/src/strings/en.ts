/**
 * Every text the page shows, in English. A translation is one more file exporting an object of
 * the same {@link Strings} shape (the type checker lists anything missing), chosen in
 * `web/src/strings/index.ts`. Texts with values are functions of them.
 */
export const en = {
  locale: 'en',
  appName: 'Book collection',
  skipToContent: 'Skip to content',
  noScript: 'This page needs JavaScript.',
  loading: 'Loading…',
  close: 'Close',
  cancel: 'Cancel',
  save: 'Save',
  saving: 'Saving…',

  nav: {
    label: 'Main',
    books: 'Books',
    accounts: 'Accounts',
    transfer: 'Import and export',
    webhooks: 'Webhooks'
  },

  session: {
    signedInAs: (username: string, role: string) => `Signed in as ${username} (${role})`,
    roleFull: 'all rights',
    signOut: 'Sign out',
    expired: 'Your session has expired. Sign in again to continue.',
    ended: 'Your session has ended (it expired, or your account was changed). Sign in again to continue.',
    signedOut: 'You are signed out.',
    noRights: 'This account has no rights on the books. Ask an administrator for a role.'
  },

  ownPassword: {
    open: 'Change password',
    title: 'Change your password',
    intro: 'Your other sessions end; this one continues with the new password.',
    current: 'Current password',
    currentMissing: 'Enter your current password.',
    wrongCurrent: 'This is not your current password.',
    submit: 'Change password',
    changed: 'Your password was changed. Your other sessions have ended.'
  },

  apiDocs: 'API documentation',

  signIn: {
    title: 'Sign in',
    intro: 'Sign in with your account to see and manage the books.',
    username: 'Username',
    password: 'Password',
    submit: 'Sign in',
    submitting: 'Signing in…',
    missing: 'Enter your username and password.',
    invalid: 'Wrong username or password.',
    tooMany: 'Too many attempts. Wait a minute, then try again.'
  },

  errors: {
    network: 'The service could not be reached. Check the connection and try again; nothing you typed is lost.',
    unavailable: 'The service cannot reach its storage right now. Try again in a moment; nothing you typed is lost.',
    forbidden: 'Your account is not allowed to do this.',
    unexpected: (status: number, message: string) => `The service answered ${status}: ${message}`,
    tooLarge: 'This is larger than the service accepts.'
  },

  live: {
    label: 'Live updates',
    on: 'Live',
    connecting: 'Connecting…',
    reconnecting: 'Reconnecting…',
    off: 'Live updates off'
  },

  books: {
    title: 'Books',
    caption: 'Books in the collection',
    search: 'Search titles and authors',
    filters: 'Filters',
    author: 'Author',
    yearFrom: 'Year from',
    yearTo: 'Year to',
    clearFilters: 'Clear filters',
    moreFilters: (inUse: number) => (inUse === 0 ? 'Filters' : `Filters (${inUse} in use)`),
    yearFilter: (field: string, minimum: number, maximum: number) => `${field} must be a whole number from ${minimum} to ${maximum}.`,
    pageSize: 'Books per page',
    add: 'Add a book',
    columns: { id: 'ID', title: 'Title', author: 'Author', year: 'Year', actions: 'Actions' },
    sortBy: (column: string) => `Sort by ${column}`,
    selectAll: 'Select every book on this page',
    select: (title: string) => `Select “${title}”`,
    edit: 'Edit',
    editBook: (title: string) => `Edit “${title}”`,
    delete: 'Delete',
    deleteBook: (title: string) => `Delete “${title}”`,
    history: 'History',
    historyOf: (title: string) => `History of “${title}”`,
    deleteSelected: (count: number) => `Delete selected (${count})`,
    changedElsewhere: 'changed by someone else',
    empty: 'There are no books in the collection yet.',
    emptyReader: 'There are no books in the collection yet. An editor can add them.',
    noMatch: 'No book matches these filters.',
    showing: (first: number, last: number, total: number) => `Books ${first} to ${last} of ${total}`,
    showingSome: (count: number, total: number) => `${count} of ${total} books`,
    paging: 'Pages',
    firstPage: 'First page',
    previousPage: 'Previous page',
    nextPage: 'Next page',
    saved: (title: string) => `Saved “${title}”.`,
    merged: (title: string) => `Saved “${title}”, merged with a change someone else made meanwhile to other fields (nothing of theirs was undone).`,
    created: (title: string) => `Added “${title}”.`,
    deleted: (count: number) => (count === 1 ? 'Deleted 1 book.' : `Deleted ${count} books.`),
    deleteFailed: (count: number) => (count === 1 ? '1 book could not be deleted.' : `${count} books could not be deleted.`),
    loadFailed: 'The books could not be loaded.',
    retry: 'Try again'
  },

  form: {
    addTitle: 'Add a book',
    editTitle: (id: number) => `Edit book ${id}`,
    fields: { title: 'Title', author: 'Author', year: 'Year' },
    yearHint: (minimum: number, maximum: number) => `A whole number from ${minimum} to ${maximum}; negative for BC.`,
    required: (field: string) => `${field} is required.`,
    notText: (field: string) => `${field} must be text.`,
    blank: (field: string) => `${field} must contain more than spaces, and no character that cannot be stored.`,
    tooLong: (field: string, limit: number) => `${field} must be at most ${limit} characters.`,
    notInteger: (field: string) => `${field} must be a whole number.`,
    range: (field: string, minimum: number, maximum: number) => `${field} must be from ${minimum} to ${maximum}.`,
    fixFirst: 'Correct the marked fields first; nothing was sent.',
    refused: (message: string) => `The service refused the book: ${message}. Check the fields and try again.`,
    changedElsewhere:
      'Someone else changed this book while you were editing it. Saving keeps their changes to the fields you did not change, and asks about any field you both changed.',
    deletedElsewhere: 'This book was deleted by someone else while you were editing it.',
    addAgain: 'Add it again as a new book'
  },

  conflict: {
    title: 'Someone else changed this book',
    intro: 'The book was changed after you opened it, and you both changed the fields below. Choose which values to keep.',
    merged: (fields: string) => `Taken from the saved version, which only the other person changed: ${fields}.`,
    field: 'Field',
    yours: 'Your version',
    theirs: 'Saved version',
    keepMine: 'Keep my version',
    takeTheirs: 'Take the saved version',
    differs: 'differs'
  },

  history: {
    title: (id: number) => `History of book ${id}`,
    caption: 'Changes to this book, newest first',
    columns: { version: 'Version', change: 'Change', when: 'When', who: 'Who', fields: 'What changed' },
    operations: { created: 'Created', updated: 'Updated', deleted: 'Deleted', restored: 'Restored' } as Record<string, string>,
    restoredFrom: (version: number) => `from version ${version}`,
    unknownActor: 'unknown',
    changed: 'changed',
    deletedBook: 'The book was deleted.',
    older: 'Show older changes',
    empty: 'No changes are kept for this book.',
    loadFailed: 'The history could not be loaded.',
    restore: 'Restore',
    restoreVersion: (version: number) => `Restore version ${version}`,
    confirmTitle: (version: number) => `Restore version ${version}?`,
    confirmIntro: 'The book will become what it was at this version, as a new version. Its history keeps every change.',
    confirmBack: 'The deleted book will come back under its id.',
    field: 'Field',
    now: 'Now',
    then: 'After restoring',
    confirm: 'Restore this version',
    restoring: 'Restoring…',
    restored: (title: string, version: number) => `Restored “${title}” to version ${version}.`,
    stale: 'Someone changed the book meanwhile; the history is shown again. Check it and restore again if you still want to.',
    close: 'Close'
  },

  undo: {
    deleted: (count: number) => (count === 1 ? 'Book deleted.' : `${count} books deleted.`),
    undo: 'Undo',
    undoing: 'Undoing…',
    done: (count: number) => (count === 1 ? 'The book is back.' : `${count} books are back.`),
    failed: 'The delete could not be undone; the books can still be restored from their history.'
  },

  confirmDelete: {
    title: (count: number) => (count === 1 ? 'Delete this book?' : `Delete ${count} books?`),
    intro: 'You can undo it for a minute afterwards, or restore the book later from its history.',
    confirm: 'Delete',
    deleting: 'Deleting…',
    book: (title: string, author: string, year: number) => `“${title}” by ${author} (${year})`
  },

  accounts: {
    title: 'Accounts',
    caption: 'Accounts that can sign in',
    columns: { username: 'Username', role: 'Role', created: 'Created', updated: 'Changed', actions: 'Actions' },
    roles: { reader: 'reader', editor: 'editor', admin: 'admin' },
    roleHelp: 'Readers see the books; editors also add, change and delete them; admins also manage accounts.',
    add: 'Add an account',
    username: 'Username',
    password: 'Password',
    newPassword: 'New password',
    role: 'Role',
    changeRole: 'Change role',
    changeRoleOf: (username: string) => `Change role of ${username}`,
    resetPassword: 'Reset password',
    resetPasswordOf: (username: string) => `Reset password of ${username}`,
    delete: 'Delete',
    deleteOf: (username: string) => `Delete ${username}`,
    confirmDelete: (username: string) => `Delete the account ${username}? Its sessions end at once.`,
    created: (username: string) => `Added the account ${username}.`,
    roleChanged: (username: string, role: string) => `${username} is now ${role}. Their earlier sessions have ended.`,
    passwordReset: (username: string) => `The password of ${username} was changed. Their earlier sessions have ended.`,
    deleted: (username: string) => `Deleted the account ${username}.`,
    exists: 'An account with this username already exists (names ignore case).',
    notFound: 'This account no longer exists.',
    lastAdmin: 'This is the last admin account: make another account admin first.',
    invalid: 'The service refused these values. Check the fields and try again.',
    usernameRule: '1 to 64 characters, no spaces at either end, no control character or “/”.',
    passwordRule: (minimum: number, maximum: number) => `${minimum} to ${maximum} characters.`,
    passwordLength: (minimum: number, maximum: number) => `The password must be ${minimum} to ${maximum} characters.`,
    usernameInvalid: 'The username must be 1 to 64 characters, with no spaces at either end, no “/”, and no control or invisible character (such as a zero-width space or a direction mark).',
    loadFailed: 'The accounts could not be loaded.'
  },

  transfer: {
    title: 'Import and export',
    exportTitle: 'Export',
    exportIntro: 'Download every book, by id, in the formats of book-service export.',
    exportNdjson: 'Download NDJSON',
    exportCsv: 'Download CSV',
    exporting: 'Preparing the file…',
    exported: (count: number) => `Exported ${count} books.`,
    importTitle: 'Import',
    importIntro:
      'Add the books of a CSV file (header title,author,year, or id,title,author,year; ids are ignored) or an NDJSON file (one book per line). ' +
      'Every row is checked with the service’s rules before anything is sent. Running the same import again after a failure stores nothing twice.',
    file: 'File to import',
    reading: 'Reading the file…',
    unreadable: (reason: string) => `The file cannot be read: ${reason}`,
    emptyFile: 'The file holds no books.',
    valid: (count: number) => (count === 1 ? '1 book is ready to import.' : `${count} books are ready to import.`),
    invalid: (count: number) => (count === 1 ? '1 row is invalid; nothing will be sent until it is corrected.' : `${count} rows are invalid; nothing will be sent until they are corrected.`),
    more: (count: number) => `…and ${count} more.`,
    line: (line: number, reason: string) => `Line ${line}: ${reason}`,
    start: (count: number) => (count === 1 ? 'Import 1 book' : `Import ${count} books`),
    progress: 'Import progress',
    progressText: (done: number, total: number) => `${done} of ${total} sent`,
    stored: (count: number, already: number) =>
      already === 0 ? (count === 1 ? 'Stored 1 book.' : `Stored ${count} books.`) : `${already} already stored, ${count} new.`,
    refused: (count: number) => (count === 1 ? 'The service refused 1 row:' : `The service refused ${count} rows:`),
    unsent: (count: number) =>
      `${count} could not be sent. Run the same import again to send them: the rows already stored are not stored twice.`,
    problems: {
      columnCount: (fields: number, header: number) => `has ${fields} fields, the header has ${header}`,
      notJson: 'is not valid JSON',
      notObject: 'is not a JSON object',
      strayQuote: 'has a quote inside a field that does not start with one (quote the whole field and double each quote in it: "say ""hi""")',
      afterClosingQuote: 'has more after a closing quote (a quote inside a quoted field is written twice: "")',
      quoteNotClosed: 'opens a quote that is never closed',
      notCsv: (detail: string) => `is not valid CSV: ${detail}`
    },
    noHeader: 'the file is empty (a CSV file starts with the header row title,author,year)'
  },

  webhooks: {
    title: 'Webhooks',
    help: 'Every change to the books is sent, signed, to each enabled endpoint, in order, retried until it succeeds.',
    caption: 'Webhook endpoints',
    columns: { url: 'URL', events: 'Events', state: 'State', actions: 'Actions' },
    events: { created: 'created', updated: 'updated', deleted: 'deleted' },
    enabled: 'Enabled',
    disabled: (reason: string | null) => (reason ? `Disabled: ${reason}` : 'Disabled'),
    enable: 'Enable',
    disable: 'Disable',
    enableOf: (url: string) => `Enable ${url}`,
    disableOf: (url: string) => `Disable ${url}`,
    deliveries: 'Deliveries',
    deliveriesOf: (url: string) => `Deliveries of ${url}`,
    remove: 'Delete',
    removeOf: (url: string) => `Delete ${url}`,
    none: 'No endpoint yet.',
    loadFailed: 'The webhooks could not be loaded.',
    add: 'Add an endpoint',
    url: 'URL',
    urlHint: 'An absolute http or https URL the service may reach (private addresses are refused unless allowed).',
    urlInvalid: 'Enter an absolute http:// or https:// URL.',
    eventsLegend: 'Send these changes',
    eventsInvalid: 'Choose at least one kind of change.',
    description: 'Description (optional)',
    secretTitle: 'The endpoint\'s signing secret',
    secretHelp: 'Copy it now: it is shown only this once. Receivers verify each delivery with it (Standard Webhooks).',
    secretDone: 'I have copied it',
    added: (url: string) => `Endpoint ${url} added.`,
    switched: (url: string, enabled: boolean) => `Endpoint ${url} ${enabled ? 'enabled' : 'disabled'}.`,
    removed: (url: string) => `Endpoint ${url} deleted.`,
    confirmRemove: (url: string) => `Delete the endpoint ${url} and its delivery log?`,
    log: {
      title: (url: string) => `Deliveries of ${url}`,
      caption: 'Deliveries, newest first',
      columns: { seq: 'Change', event: 'Event', attempt: 'Attempts', status: 'Status', http: 'HTTP', at: 'Last attempt', error: 'Error' },
      statuses: { pending: 'pending (retrying)', succeeded: 'succeeded', failed: 'failed' },
      filter: 'Show',
      all: 'all',
      none: 'No delivery yet.',
      replay: 'Send again from change',
      replayHint: 'Every change after this number is sent again, in order, with the same webhook-id.',
      replayButton: 'Replay',
      replayInvalid: 'Enter a change number (0 or more).',
      replayed: (after: number) => `Changes after ${after} will be sent again.`,
      close: 'Close'
    }
  }
}

/** The shape every translation has. */
export type Strings = typeof en
