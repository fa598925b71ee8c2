// JSON lines over a pair of streams: the transport half of the compat-adapter plugin.
// Wire rules (INTEGRATION.md, "The serve protocol"): one JSON object per line; a message with a
// `method` is a request (with `id`) or a notification (without); a message with `result` or
// `error` is the reply to one of our requests. Notifications are handled in arrival order.
import { createInterface } from 'node:readline'

export class Channel {
  constructor(input, output, name = 'service') {
    this.name = name
    this.output = output
    this.requests = new Map()
    this.notifications = new Map()
    this.pending = new Map()
    this.ids = 0
    this.closed = false
    this.closeReason = undefined
    this.onClose = []
    this.lines = createInterface({ input, crlfDelay: Infinity })
    this.lines.on('line', (line) => this.handle(line))
    this.lines.on('close', () => this.close('end of input'))
  }

  onRequest(method, fn) { this.requests.set(method, fn) }
  onNotification(method, fn) { this.notifications.set(method, fn) }

  send(message) {
    if (this.closed) return
    this.output.write(JSON.stringify(message) + '\n')
  }

  notify(method, params = {}) { this.send({ method, params }) }

  request(method, params = {}) {
    if (this.closed) return Promise.reject(new Error(`the channel to ${this.name} is closed (${this.closeReason})`))
    const id = ++this.ids
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method })
      this.send({ id, method, params })
    })
  }

  close(reason = 'closed') {
    if (this.closed) return
    this.closed = true
    this.closeReason = reason
    for (const { reject, method } of this.pending.values()) {
      reject(new Error(`the channel to ${this.name} closed before it answered ${method} (${reason})`))
    }
    this.pending.clear()
    this.lines.close()
    for (const fn of this.onClose) fn(reason)
  }

  handle(line) {
    if (!line.trim()) return
    let message
    try { message = JSON.parse(line) } catch (error) {
      this.send({ id: null, error: { code: 'PROTOCOL_ERROR', message: `the line is not JSON: ${error.message}` } })
      return
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.send({ id: null, error: { code: 'PROTOCOL_ERROR', message: 'a message is a JSON object' } })
      return
    }
    const { id, method, params = {} } = message
    if (method === undefined) {
      const waiting = this.pending.get(id)
      if (!waiting) return
      this.pending.delete(id)
      if ('error' in message) {
        const error = new Error(message.error?.message ?? 'error')
        error.code = message.error?.code
        waiting.reject(error)
      } else waiting.resolve(message.result)
      return
    }
    if (id === undefined || id === null) {
      const fn = this.notifications.get(method)
      if (fn) {
        try { fn(params) } catch (error) { process.stderr.write(`compat-adapter: notification ${method} failed: ${error}\n`) }
      }
      return
    }
    const fn = this.requests.get(method)
    if (!fn) {
      this.send({ id, error: { code: 'PROTOCOL_ERROR', message: `unknown method ${JSON.stringify(method)}` } })
      return
    }
    Promise.resolve().then(() => fn(params)).then(
      (result) => this.send({ id, result: result ?? null }),
      (error) => this.send({ id, error: { code: error?.code ?? 'HOST_ERROR', message: String(error?.message ?? error) } }),
    )
  }
}
