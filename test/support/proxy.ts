import { createServer, connect, type Server, type Socket } from 'node:net'
import { POSTGRES_ADMIN_URL } from './engines.js'

/** A TCP proxy on 127.0.0.1 in front of a database, that a test can cut, freeze and restore. */
export interface TcpProxy {
  /** The port the proxy listens on (kept across {@link TcpProxy.cut} and {@link TcpProxy.restore}). */
  port: number
  /** Database down: stops listening (new connections are refused) and destroys every open connection. */
  cut(): Promise<void>
  /** Database silent: keeps connections open and accepts new ones, but forwards nothing either way. */
  freeze(): void
  /** Database back: listens again (after a cut) and forwards again (after a freeze). */
  restore(): Promise<void>
  /** Stops the proxy for good. */
  close(): Promise<void>
}

/**
 * Starts a proxy on 127.0.0.1 (a free port, or `port`) forwarding to `target` (e.g. the test
 * PostgreSQL server), so a test can take the database away without touching the real server.
 */
export async function startProxy(target: { host: string; port: number }, port = 0): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  let frozen = false
  let server: Server | undefined

  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }

  const listen = async (onPort: number): Promise<number> => {
    const listening = createServer((client) => {
      const upstream = connect(target.port, target.host)
      track(client)
      track(upstream)
      client.on('close', () => upstream.destroy())
      upstream.on('close', () => client.destroy())
      // Forward by hand (not pipe) so that a freeze can drop bytes instead of buffering them.
      client.on('data', (chunk) => {
        if (!frozen) upstream.write(chunk)
      })
      upstream.on('data', (chunk) => {
        if (!frozen) client.write(chunk)
      })
    })
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject)
      listening.listen(onPort, '127.0.0.1', () => resolve())
    })
    server = listening
    return (listening.address() as { port: number }).port
  }

  const stopListening = async () => {
    const closing = server
    server = undefined
    for (const socket of sockets) socket.destroy()
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()))
  }

  const boundPort = await listen(port)
  return {
    port: boundPort,
    cut: stopListening,
    freeze: () => {
      frozen = true
    },
    restore: async () => {
      frozen = false
      if (!server) await listen(boundPort)
    },
    close: stopListening
  }
}

/** `url` with its host and port replaced by 127.0.0.1:`port` (the same database through a proxy). */
export function through(url: string, port: number): string {
  const proxied = new URL(url)
  proxied.hostname = '127.0.0.1'
  proxied.port = String(port)
  return proxied.toString()
}

/** The PostgreSQL server the tests use, as a proxy target. */
export function postgresTarget(): { host: string; port: number } {
  const admin = new URL(POSTGRES_ADMIN_URL)
  return { host: admin.hostname, port: Number(admin.port || 5432) }
}
