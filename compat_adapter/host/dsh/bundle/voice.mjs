// Context in the role each vendor gives it, and what hooks tell the person, on DeepSeek Harness 0.2.1.
//
// Context. Claude gives hook context a system message and Codex a developer message; DeepSeek's
// wire reads both as system text. DSH 0.2.1 sends no plugin developer message in a session's first
// request, but it renders the system prompt into every request, and a section added there reaches
// the very request of the turn whose prompt was claimed, on every route. So a service message in
// the system or developer role becomes system-prompt text: SessionStart's through the agent's own
// `systemPrompt.section()` (its hook has run in the serial agent/created, before any assembly); the
// prompt hooks' and tool hooks' through the `system-prompt/assemble` waterfall. Assembly runs before
// `agent/pre-step`, so the UserPromptSubmit hooks run at assembly, on the batch `agent/inbox/claimed`
// announced, and pre-step applies what they decided (a block is still a pre-step reject). Context
// is kept for the session, as the vendors keep theirs in the transcript, and written to the log as
// a plugin record so that a resumed session reads it back. Costs, measured (tests/host): on a route
// without in-history prompt updates (the SDK's deepseek-v4-flash) every change rewrites the head
// system message and starts a new request series (the prompt cache is lost once per change); on an
// in-history route (deepseek-flash) every change appends a whole copy of the rendered prompt.
//
// Notices. What a hook tells the person (a blocked prompt's reason as the vendor shows it, a
// stopReason, a systemMessage, a held-back hook file) is a plugin record `plugin:compat-adapter/
// notice` in the session log, which the model never reads; each place DSH shows a session to its
// person shows it. The SDK streams every session event, this record with them. The web UI draws
// its chat from the session's events through conversation Definitions, and the bundle's web half
// (client.js) adds one that draws this record in the chat, in its place in the turn. `dsh headless
// --json` projects only seven event kinds onto stdout (dsh-headless json-stream) and none a plugin
// writes, so in that mode the notice is also a `{"type": "notice", …}` line on the same stdout, in
// session order; and always a `compat-adapter: …` line on stderr, beside DSH's own diagnostics.
// A notice that ends its turn (a block, a continue:false) also ends the turn through
// `agent.cancel({kind: 'hook', reason})`: turn/end carries the words too (headless's turn_end
// status, the SDK's finish).

export const CONTEXT_ROLES = ['system', 'developer']
const PLACED = new Set(CONTEXT_ROLES)
/** Whether a service message is context for the system prompt rather than a message. */
export const placed = (message) => PLACED.has(message?.role)
export const SECTION = 'compat-adapter:hook-context'
export const START_SECTION = 'compat-adapter:session-start'
export const NOTICE_RECORD = 'plugin:compat-adapter/notice'
export const CONTEXT_RECORD = 'plugin:compat-adapter/context'
// Late among the runtime's own sections, as the vendors' context follows their own prompt.
const START_ORDER = 9600

/**
 * @param ctx - the plugin's Cordis context.
 * @param tools - { logger, session: the runtime's session module (appendPluginRecord, pluginRecordOf) }
 */
export function createVoice(ctx, { logger, session }) {
  const kept = new Map() // agent id → context texts given in its turns (kept, in order)
  const started = new Map() // agent id → { texts, off } of its SessionStart section
  const claims = new Map() // agent id → { turn, messages } claimed for the step being assembled
  const early = new Map() // agent id → what the service decided for that step at assembly
  const steps = new Map() // session id → { turn, step } of its last step/start
  const ending = new Map() // session id → the notice text its turn ends with
  const waiting = new Map() // agent id → notices said before its first turn (held-back files)
  let decide = null // (payload) => the service's pre-step answer, while it holds agent/pre-step
  let before = async () => {} // (agent) => awaited before an agent's assembly (a child's start)

  const record = (agent, type, data) => {
    try { session.appendPluginRecord(agent.session, type, data) } catch (error) {
      logger.warn(`compat-adapter: could not write ${type}: ${error.message}`)
    }
  }

  /** A notice in its session: the record, and in `dsh headless --json` its line on that stdout
   * (only the headless profile provides headlessStartup; the SDK's stdout is its JSON-RPC). */
  const say = (agent, data) => {
    record(agent, NOTICE_RECORD, data)
    if (ctx.get('headlessStartup')?.json !== true) return
    process.stdout.write(`${JSON.stringify({ type: 'notice', source: 'compat-adapter', ...data })}\n`)
  }

  /** Keep `text` as system-prompt context of `agent` (SessionStart's in its own section). */
  const keep = (agent, text, { start = false } = {}) => {
    if (!agent || !text) return
    if (start) {
      let entry = started.get(agent.id)
      if (!entry) {
        entry = { texts: [] }
        // A text function: a later start (resume, clear, compact) adds to the same section.
        entry.off = agent.ctx.systemPrompt.section({ name: START_SECTION, order: START_ORDER, interpolate: false,
          text: () => entry.texts.join('\n\n') })
        started.set(agent.id, entry)
      }
      entry.texts.push(text)
    } else {
      kept.set(agent.id, [...(kept.get(agent.id) ?? []), text])
    }
    record(agent, CONTEXT_RECORD, { text, start })
  }

  /** A resumed agent reads back the context its session was given before. */
  const restore = (agent) => {
    const log = agent.session
    for (let seq = 0; log && seq < Number(log.seq); seq++) {
      const r = session.pluginRecordOf?.(log.eventAt(seq))
      if (r?.type !== CONTEXT_RECORD || typeof r.data?.text !== 'string') continue
      if (r.data.start) continue // SessionStart runs again on resume and says it anew
      kept.set(agent.id, [...(kept.get(agent.id) ?? []), r.data.text])
    }
  }

  const forget = (agentId) => {
    kept.delete(agentId); claims.delete(agentId); early.delete(agentId); waiting.delete(agentId)
    started.get(agentId)?.off?.(); started.delete(agentId)
  }

  ctx.on('agent/inbox/claimed', ({ agent, message, turn }) => {
    if (!decide || !agent) return
    const claim = claims.get(agent.id) ?? { turn, messages: [] }
    claim.messages.push(message)
    claims.set(agent.id, claim)
  })

  // The step being assembled: its prompt hooks run now, and its section carries every kept text.
  ctx.on('system-prompt/assemble', async (_assembly, context, next) => {
    const agent = context.agent
    if (agent) {
      await before(agent)
      // Said at the session's start, written at its first step: the SDK streams a session's
      // events from its first prompt on, so a record written before would reach nobody.
      for (const n of waiting.get(agent.id) ?? []) say(agent, n)
      waiting.delete(agent.id)
      early.delete(agent.id)
      const claim = claims.get(agent.id)
      claims.delete(agent.id)
      if (claim && decide) {
        const last = steps.get(agent.session?.header?.id ?? agent.id)
        const step = last?.turn === claim.turn ? last.step + 1 : 1
        early.set(agent.id, await decide({ agent, messages: claim.messages, turn: claim.turn, step, signal: context.signal }))
      }
    }
    const assembly = await next()
    const texts = agent ? kept.get(agent.id) ?? [] : []
    if (!texts.length) return assembly
    // interpolate:false: a `{{x}}` in a hook's text is the hook's, never a prompt variable.
    return { ...assembly, sections: [...assembly.sections, { name: SECTION, text: texts.join('\n\n'), interpolate: false }] }
  }, { prepend: true })

  ctx.on('session/event', (s, event) => {
    const id = s.header?.id ?? s.id
    if (event.type === 'step/start') steps.set(id, { turn: event.data.turn, step: event.data.step })
    else if (event.type === 'turn/end') ending.delete(id)
  })
  ctx.on('agent/created', ({ agent, source }) => { if (source === 'resume') restore(agent) })
  ctx.on('agent/disposed', ({ agent }) => { forget(agent.id); steps.delete(agent.session?.header?.id ?? agent.id) })

  /** A notice from the service: recorded in its session; one that ends the turn ends it in words. */
  const notice = ({ kind, text, session: sessionId, origin, ends_turn: endsTurn }) => {
    const agent = sessionId ? ctx.get('agents')?.get(sessionId) : undefined
    if (!agent) { logger.warn(`compat-adapter: ${kind}: ${text}`); return }
    const data = { kind, text, origin: origin ?? null, endsTurn: !!endsTurn }
    // And at once on the runtime's stderr, where `dsh headless` writes its diagnostics.
    process.stderr.write(`compat-adapter: ${text}\n`)
    if (kind === 'held') waiting.set(agent.id, [...(waiting.get(agent.id) ?? []), data])
    else say(agent, data)
    if (endsTurn) ending.set(sessionId, text)
  }

  /** A refused step: when a notice ends this turn, the turn ends with its words. */
  const refused = (agent) => {
    const id = agent?.session?.header?.id ?? agent?.id
    const text = ending.get(id)
    if (text === undefined) return
    ending.delete(id)
    agent.cancel({ kind: 'hook', reason: text })
  }

  return {
    keep, restore, forget, notice, refused,
    beforeAssembly: (fn) => { before = fn },
    /** From now on (null: no longer) the service decides pre-step at assembly, through `fn`. */
    deciding: (fn) => { decide = fn; if (!fn) { claims.clear(); early.clear() } },
    /** What the service decided for this agent's step at assembly, taken once (undefined: none). */
    takeEarly: (agentId) => { const d = early.get(agentId); early.delete(agentId); return d },
  }
}

/**
 * The entered batch: the runtime's own (what later listeners and the default made of the claimed
 * messages), with each claimed message as the service left it (replaced, or dropped when a hook
 * merged the batch), then the service's new messages.
 */
export function enteredBatch(claimed, down, answered, convert, textOf) {
  const claimedIds = new Set(claimed.map((m) => m.id))
  const mine = new Map(answered.map((m) => [m.id, m]))
  const out = []
  for (const m of down) {
    if (!claimedIds.has(m.id)) { out.push(m); continue }
    const given = mine.get(m.id)
    if (!given) continue
    mine.delete(m.id)
    out.push(textOf(m.content) === given.text ? m : convert(given))
  }
  for (const m of mine.values()) if (!claimedIds.has(m.id)) out.push(convert(m))
  return out
}
