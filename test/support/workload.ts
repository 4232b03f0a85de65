import { performance } from 'node:perf_hooks'
import { authHeaders } from './app.js'

/** The fields a write sets; every write carries a title no other write uses, so a stored title names its write. */
interface Fields {
  title: string
  author: string
  year: number
}

/** One request of the workload and what the client saw of it. */
interface Operation {
  kind: 'create' | 'update' | 'delete'
  id?: number
  fields?: Fields
  /** `performance.now()` when the request was sent and when its answer (or error) arrived, in ms. */
  sentAt: number
  settledAt: number
  /** `answered`: an HTTP status came back; `failed`: the connection failed; `pending`: still open. */
  outcome: 'pending' | 'answered' | 'failed'
  status?: number
}

/** What is known of one book whose creation was acknowledged. */
interface BookHistory {
  id: number
  /** The stored state confirmed by the last check (or the create's answer). */
  confirmed: Fields
  /** When that state was confirmed (ms); acknowledged writes sent later must win over it. */
  confirmedAt: number
  /** Updates and deletes sent since. */
  operations: Operation[]
}

/** How connection failures are judged. */
export type FailureMeaning =
  /** SIGKILL: a request whose connection died may or may not have taken effect. */
  | 'unknown'
  /** SIGTERM: a request refused by a closing server must have had no effect. */
  | 'not-applied'

/** The outcome of {@link BookWorkload.verify}. */
export interface Verdict {
  /** Every broken promise found, in words; empty when nothing acknowledged was lost. */
  violations: string[]
  /** Acknowledged writes (2xx creates, updates, deletes) whose effect was checked. */
  acknowledgedWrites: number
  /** Books present after the check. */
  books: number
}

const isSuccess = (status: number | undefined) => status !== undefined && status >= 200 && status < 300
const fieldsEqual = (a: Fields, b: { title: string; author: string; year: number }) =>
  a.title === b.title && a.author === b.author && a.year === b.year

/**
 * A concurrent create/update/delete workload against a running server, and the model that
 * checks afterwards that every acknowledged write is still there (docs/contract.md "Everything else").
 *
 * Every write uses a unique title, so the stored state of a book tells exactly which write it
 * came from. Writes racing on one id are judged by their times: the stored state must come from
 * a write that was acknowledged (or, for failed connections, may have been applied), and no
 * acknowledged write to the same book may have been sent after that write was acknowledged
 * (it would have to be newer). A book with an acknowledged delete must be gone; a book without
 * one must be present. The history carries over rounds: each check confirms the stored state.
 */
export class BookWorkload {
  private readonly books = new Map<number, BookHistory>()
  /** Creates that got no answer: their books may or may not exist. */
  private unansweredCreates: Operation[] = []
  /** How many writes this workload has sent: each write's fields carry its number, so they differ. */
  private writesSent = 0
  /** Creates answered 2xx since the last check. */
  private acknowledgedCreates = 0
  private readonly headers = { ...authHeaders(), 'content-type': 'application/json' }
  /** Requests answered with a status other than 2xx or 404 (404: the id was deleted meanwhile). */
  readonly unexpectedStatuses: string[] = []
  /** Requests sent so far. */
  requests = 0
  /** The requests sent since the last check. */
  private round: Operation[] = []

  constructor(private readonly tag: string) {}

  /**
   * Runs `connections` concurrent request loops against `baseUrl` until `stop()` returns true.
   * A loop whose request failed at the connection waits `backoffMs` before the next one.
   */
  async run(baseUrl: string, connections: number, stop: () => boolean, backoffMs = 5): Promise<void> {
    const loop = async () => {
      while (!stop()) {
        const failed = await this.step(baseUrl)
        if (failed) await new Promise((resolve) => setTimeout(resolve, backoffMs))
      }
    }
    await Promise.all(Array.from({ length: connections }, loop))
  }

  /** Sends one random write; true when its connection failed. */
  private async step(baseUrl: string): Promise<boolean> {
    const live = [...this.books.values()].filter((book) => !book.operations.some((op) => op.kind === 'delete' && isSuccess(op.status)))
    const write = ++this.writesSent
    const roll = Math.random()
    let operation: Operation
    if (live.length < 20 || roll < 0.35) {
      const fields = { title: `${this.tag}-c${write}`, author: `author-${write}`, year: (write % 19_999) - 9999 }
      operation = { kind: 'create', fields, sentAt: 0, settledAt: Infinity, outcome: 'pending' }
      this.unansweredCreates.push(operation)
    } else {
      const book = live[Math.floor(Math.random() * live.length)]!
      if (roll < 0.85) {
        const confirmed = book.confirmed
        operation = {
          kind: 'update',
          id: book.id,
          fields: { title: `${this.tag}-u${write}`, author: confirmed.author, year: (write % 19_999) - 9999 },
          sentAt: 0,
          settledAt: Infinity,
          outcome: 'pending'
        }
      } else {
        operation = { kind: 'delete', id: book.id, sentAt: 0, settledAt: Infinity, outcome: 'pending' }
      }
      book.operations.push(operation)
    }
    const path = operation.kind === 'create' ? '/book' : `/book/${operation.id}`
    const method = { create: 'POST', update: 'PUT', delete: 'DELETE' }[operation.kind]
    const body =
      operation.kind === 'create'
        ? JSON.stringify(operation.fields)
        : operation.kind === 'update'
          ? JSON.stringify({ title: operation.fields!.title, year: operation.fields!.year })
          : undefined
    this.requests++
    this.round.push(operation)
    operation.sentAt = performance.now()
    try {
      const response = await fetch(baseUrl + path, { method, headers: this.headers, body })
      const answer = (await response.json()) as { status: number; data: { id: number } & Fields }
      operation.settledAt = performance.now()
      operation.outcome = 'answered'
      operation.status = response.status
      if (!isSuccess(response.status) && response.status !== 404) {
        this.unexpectedStatuses.push(`${method} ${path} -> ${response.status} ${JSON.stringify(answer)}`)
      }
      if (operation.kind === 'create' && isSuccess(response.status)) {
        this.unansweredCreates = this.unansweredCreates.filter((op) => op !== operation)
        this.acknowledgedCreates++
        if (!fieldsEqual(operation.fields!, answer.data)) {
          this.unexpectedStatuses.push(`POST /book answered other content: ${JSON.stringify(answer.data)}`)
        }
        this.books.set(answer.data.id, {
          id: answer.data.id,
          confirmed: operation.fields!,
          confirmedAt: operation.settledAt,
          operations: []
        })
      }
      return false
    } catch {
      operation.settledAt = performance.now()
      operation.outcome = 'failed'
      return true
    }
  }

  /**
   * The requests of this round that were open at `time` (`performance.now()`, e.g. when a signal
   * was sent): how many of them were answered and how many failed at the connection.
   */
  openAt(time: number): { answered: number; failed: number } {
    const open = this.round.filter((op) => op.sentAt <= time && op.settledAt >= time)
    return { answered: open.filter((op) => op.outcome === 'answered').length, failed: open.filter((op) => op.outcome === 'failed').length }
  }

  /**
   * Reads every book from `baseUrl` (a server restarted on the same data) and checks it against
   * the history; then takes the stored state as the new confirmed state.
   */
  async verify(baseUrl: string, failures: FailureMeaning): Promise<Verdict> {
    const response = await fetch(`${baseUrl}/books`, { headers: this.headers })
    const stored = new Map<number, Fields>()
    for (const book of ((await response.json()) as { data: Array<{ id: number } & Fields> }).data) {
      // Books of other workloads sharing the database are not this one's to judge.
      if (!book.title.startsWith(`${this.tag}-`) && !this.books.has(book.id)) continue
      stored.set(book.id, { title: book.title, author: book.author, year: book.year })
    }
    const violations: string[] = []
    let acknowledgedWrites = 0
    const mayHaveApplied = (op: Operation) =>
      isSuccess(op.status) || op.outcome === 'pending' || (op.outcome === 'failed' && failures === 'unknown')

    for (const book of [...this.books.values()]) {
      const now = stored.get(book.id)
      const acked = book.operations.filter((op) => isSuccess(op.status))
      acknowledgedWrites += acked.length
      const deletes = book.operations.filter((op) => op.kind === 'delete')
      if (!now) {
        if (!deletes.some(mayHaveApplied)) violations.push(`book ${book.id} is gone but no delete of it may have run`)
        this.books.delete(book.id)
        continue
      }
      stored.delete(book.id)
      if (acked.some((op) => op.kind === 'delete')) {
        violations.push(`book ${book.id} was deleted (2xx) but is still there: ${JSON.stringify(now)}`)
      }
      const writer = book.operations.find((op) => op.kind === 'update' && op.fields!.title === now.title)
      let writtenAt: number
      if (writer) {
        if (!mayHaveApplied(writer)) violations.push(`book ${book.id} holds the write of a refused request ${now.title}`)
        if (!fieldsEqual(writer.fields!, now)) violations.push(`book ${book.id} holds a torn write: ${JSON.stringify(now)}`)
        writtenAt = isSuccess(writer.status) ? writer.settledAt : Infinity
      } else if (fieldsEqual(book.confirmed, now)) {
        writtenAt = book.confirmedAt
      } else {
        violations.push(`book ${book.id} holds content no write produced: ${JSON.stringify(now)}`)
        writtenAt = Infinity
      }
      const newer = acked.find((op) => op.kind === 'update' && op !== writer && op.sentAt > writtenAt)
      if (newer) {
        violations.push(`book ${book.id}: acknowledged update ${newer.fields!.title} lost (stored ${now.title})`)
      }
      book.confirmed = now
      book.confirmedAt = performance.now()
      book.operations = []
    }

    acknowledgedWrites += this.acknowledgedCreates
    this.acknowledgedCreates = 0
    // Creates that got no answer: their book may exist (when the connection just died).
    for (const [id, fields] of stored) {
      const create = this.unansweredCreates.find((op) => op.fields!.title === fields.title)
      if (!create || (create.outcome === 'failed' && failures === 'not-applied')) {
        violations.push(`book ${id} was stored by no acknowledged or possibly applied create: ${JSON.stringify(fields)}`)
      }
      this.books.set(id, { id, confirmed: fields, confirmedAt: performance.now(), operations: [] })
    }
    this.unansweredCreates = []
    this.round = []
    return { violations, acknowledgedWrites, books: this.books.size }
  }
}
