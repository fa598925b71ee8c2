// The compat-adapter Cordis plugin: transport and seam glue between a DeepSeek Harness 0.2.1
// composition and the compat-adapter service. It decides nothing: it reports the composition
// (services, the runtime's version, bridge packages, the seams it forwards), forwards the seams the
// service subscribes to, hands back what the service answers, provides the `compatAdapter` service
// to other plugins, imports the session folder's own vendor files, brings what a profile lacks
// (DSH's own workspace-changes recorder; a relay into DSH's shellEnv registry: see the functions
// after `describe`), and fails closed (with the reason in the log) when the service does not
// answer, is gone, or the channel is lost.
//
// Config (every key optional): { command?: [argv of `compat-adapter serve --stdio`], connect?: <unix
//   socket of a service already listening>, answerTimeoutMs?: number, cwd?: string,
//   workspace?: boolean (import the session folder's own vendor files; default true),
//   hooks?: [...register_hook params], rules?: [...register_rules params], channel?: <an open Channel> }
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createConnection } from 'node:net'
import { delimiter, dirname, join, sep } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Channel } from './channel.mjs'
import { CONTEXT_ROLES, createVoice, enteredBatch, placed } from './voice.mjs'

export const name = 'compat-adapter'
export const PROTOCOL = 1
// Long enough for the slowest vendor default hook timeout (Claude: 600 s) plus its kill grace.
export const DEFAULT_ANSWER_TIMEOUT_MS = 660_000
// What a preset plugin lists in its `inject` to call the service.
export const SERVICE = 'compatAdapter'

const WATERFALL = new Set(['tools/pre-execute', 'tools/execute', 'tools/post-execute', 'agent/pre-step', 'approval/request', 'user-questions/request'])
const SERIAL = new Set(['agent/turn-stopping', 'agent/created'])
const BRIDGES = ['@deepseek-ai/dsh-hooks-claude-code', '@deepseek-ai/dsh-hooks-codex']
const CODEX_BRIDGE = '@deepseek-ai/dsh-hooks-codex'

// Modules resolve as the runtime resolves them for this file: the profile's node_modules, then the
// runtime's own packages (the single-file executable serves them from its snapshot).
const requireHere = createRequire(import.meta.url)
export const load = (spec) => import(pathToFileURL(requireHere.resolve(spec)).href)
const resolves = (spec) => { try { requireHere.resolve(spec); return true } catch { return false } }

// The service command: the config's, else $COMPAT_ADAPTER_COMMAND (JSON argv or one path), else the
// `compat-adapter` installed beside the runtime that runs this plugin (pip installs the DSH runtime
// and compat-adapter into one environment: <prefix>/lib/pythonX/site-packages/… and <prefix>/bin),
// else `compat-adapter` on PATH. Found once, never guessed further.
export function serviceCommand(config = {}, env = process.env, execPath = process.execPath) {
  if (Array.isArray(config.command) && config.command.length) return config.command
  const given = env.COMPAT_ADAPTER_COMMAND?.trim()
  if (given) return given.startsWith('[') ? JSON.parse(given) : [given, 'serve', '--stdio']
  const parts = execPath.split(sep)
  const lib = parts.lastIndexOf('lib')
  if (lib > 0 && parts[lib + 2] === 'site-packages') {
    const beside = join(parts.slice(0, lib).join(sep) || sep, 'bin', 'compat-adapter')
    if (existsSync(beside)) return [beside, 'serve', '--stdio']
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'compat-adapter'))) return [join(dir, 'compat-adapter'), 'serve', '--stdio']
  }
  throw new Error('compat-adapter: no `compat-adapter` executable beside the DSH runtime or on PATH; '
    + 'install it into the same environment (pip install compat-adapter), or set COMPAT_ADAPTER_COMMAND')
}

const deepFreeze = (value) => {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

export async function apply(ctx, config = {}) {
  const { createUserMessage } = await load('@deepseek-ai/dsh-llm')
  const logger = ctx.logger('compat-adapter')
  // Context in its role and the person's notices (voice.mjs).
  const voice = createVoice(ctx, { logger, session: await load('@deepseek-ai/dsh-session') })
  const timeoutMs = config.answerTimeoutMs ?? (Number(process.env.COMPAT_ADAPTER_ANSWER_TIMEOUT_MS) || DEFAULT_ANSWER_TIMEOUT_MS)
  const connect = config.connect ?? process.env.COMPAT_ADAPTER_CONNECT
  const channel = config.channel ?? (connect ? await connectService(connect) : spawnService(serviceCommand(config), config.cwd))
  const subscriptions = new Map()
  const dispatches = new Map()
  const mounts = new Map()
  const inflight = new Set()
  let dispatchIds = 0
  let mountIds = 0

  // ── wire shapes (host vocabulary) ──
  const textOf = (blocks) => (blocks ?? []).filter((b) => b?.type === 'text').map((b) => b.text).join('')
  const sourceJson = (s) => ({ kind: s?.kind ?? 'user', name: s?.name ?? null })
  const messageJson = (m, known) => { known?.set(m.id, m); return { id: m.id, text: textOf(m.content), source: sourceJson(m.source) } }
  const sessionJson = (session) => ({ id: session.header?.id ?? session.id, cwd: session.header?.cwd ?? null, transcript_path: null })
  const agentJson = (agent) => agent ? { id: agent.id, session: sessionJson(agent.session), parent_id: agent.session?.header?.parentSession ?? null } : null
  const executionJson = (exec) => ({ call_id: exec.callId, name: exec.name, arguments: exec.arguments, agent: agentJson(exec.agent) })
  const resultJson = (result) => ({ is_error: !!result?.isError, text: textOf(result?.content) })
  // v4 refuses a plugin source ({kind: 'plugin'}): a source kind names its producer.
  const dshSource = (s) => s?.kind === 'user' ? { kind: 'user' } : { kind: s?.kind ?? 'compat-adapter', ...(s?.name ? { name: s.name } : {}) }
  // A message this side sent comes back as the same object unless its text was replaced (a
  // transformed prompt): then it is a new message with the original's source.
  const dshMessage = (m, known) => {
    const original = known?.get(m.id)
    if (original && textOf(original.content) === m.text) return original
    return createUserMessage({ content: [{ type: 'text', text: m.text }], source: original?.source ?? dshSource(m.source) })
  }

  const encoders = {
    'tools/pre-execute': (exec) => executionJson(exec),
    'tools/execute': (exec) => executionJson(exec),
    'tools/post-execute': (exec, result) => ({ execution: executionJson(exec), result: { is_error: !!result.isError, text: textOf(result.content) } }),
    'agent/pre-step': (p, known) => ({ agent: agentJson(p.agent), messages: p.messages.map((m) => messageJson(m, known)), turn: p.turn, step: p.step }),
    'agent/turn-stopping': (p) => ({ agent: agentJson(p.agent), turn: p.turn }),
    'agent/created': (p) => ({ agent: agentJson(p.agent), source: p.source ?? 'startup' }),
    'agent/status': (p) => ({ agent: agentJson(p.agent), status: p.status }),
    'agent/error': (p) => ({ agent: agentJson(p.agent), turn: p.turn, step: p.step, error: String(p.error?.message ?? p.error) }),
    'agent/disposed': (p) => ({ agent: agentJson(p.agent) }),
    'agent/inbox/inserted': (p, known) => ({ agent: agentJson(p.agent), message: messageJson(p.message, known) }),
    'approval/request': (r) => ({ agent: agentJson(r.agent), tool_name: r.toolName, call_id: r.callId ?? null, reason: r.reason ?? null }),
    'user-questions/request': (r) => ({ agent: agentJson(r.agent),
      questions: (r.questions ?? []).map((q) => ({ id: q.id, question: q.question, options: (q.options ?? []).map((o) => o.label) })) }),
    'session/created': (s) => ({ session: sessionJson(s) }),
    'settings/document-updated': (ns, revision) => ({ namespace: String(ns), revision }),
    'subagent/start': (info) => ({ run_id: info.runId, child_id: info.id, provider: info.provider, local: info.local,
      parent: agentJson(ctx.get('agents')?.currentInitiator?.()), child: agentJson(ctx.get('agents')?.get(info.id)) }),
    'subagent/end': (info) => ({ run_id: info.runId, child_id: info.id, provider: info.provider, local: info.local,
      stop_reason: String(info.stopReason ?? ''), last_assistant_message: info.lastAssistantMessage ?? null,
      parent: agentJson(ctx.get('agents')?.currentInitiator?.()) }),
  }

  const failClosed = (seam, reason) => {
    logger.warn(`compat-adapter: failing closed on ${seam}: ${reason}`)
    if (seam === 'tools/pre-execute') return { kind: 'deny', reason: `compat-adapter: ${reason}` }
    if (seam === 'tools/post-execute') return { kind: 'block', feedback: [{ type: 'text', text: `compat-adapter: ${reason}` }] }
    if (seam === 'tools/execute') {
      const message = `compat-adapter: ${reason}`
      return { isError: true, error: { message }, content: [{ type: 'text', text: message }] }
    }
    if (seam === 'agent/pre-step') return { kind: 'reject' }
    if (seam === 'approval/request') return 'unavailable'
    // An unanswered question is an error the asker sees, as when nobody answers at all.
    if (seam === 'user-questions/request') throw Object.assign(new Error(`compat-adapter: ${reason}`), { code: 'NO_PROVIDER' })
    return undefined
  }

  const toVerdict = (seam, v, state) => {
    if (seam === 'tools/pre-execute') {
      if (v?.kind === 'deny') return { kind: 'deny', reason: v.reason ?? 'denied by compat-adapter' }
      if (v?.kind === 'ask') return v.reason ? { kind: 'ask', reason: v.reason } : { kind: 'ask' }
      if (v?.kind === 'allow') return { kind: 'allow' }
    } else if (seam === 'tools/post-execute') {
      const down = state.downstream?.kind === v?.kind ? state.downstream : { kind: v?.kind }
      const contexts = keepPlaced(v?.additional_contexts ?? [], state.event?.agent).map((m) => dshMessage(m, state.known))
      if (v?.kind === 'block') {
        const same = down === state.downstream && textOf(down.feedback) === v.feedback
        return { ...down, feedback: same ? down.feedback : [{ type: 'text', text: v.feedback ?? '' }], ...(contexts.length ? { additionalContexts: contexts } : {}) }
      }
      if (v?.kind === 'accept') {
        const { additionalContexts, ...rest } = down
        // Appended context follows the result's own blocks (or the ones a later listener chose).
        if (v.appended && rest.value !== undefined) logger.warn('compat-adapter: a later listener replaced the result value; appended context dropped')
        const appended = typeof v.appended === 'string' && v.appended && rest.value === undefined
          ? { content: [...(rest.content ?? state.result?.content ?? []), { type: 'text', text: v.appended }] } : {}
        return { ...rest, kind: 'accept', ...appended, ...(contexts.length ? { additionalContexts: contexts } : {}) }
      }
    } else if (seam === 'tools/execute') {
      // The service answers with one of the two results this side holds: what next() returned, or
      // the nested call's (a rewrite run through ctx.tools.execute).
      if (v?.kind === 'downstream' && state.downstream) return state.downstream
      if (v?.kind === 'nested' && state.nested) return state.nested
    } else if (seam === 'agent/pre-step') {
      if (v?.kind === 'reject') return { kind: 'reject' }
      if (v?.kind === 'enter') return { kind: 'enter', messages: v.messages.map((m) => dshMessage(m, state.known)) }
    } else if (seam === 'approval/request') {
      if (['allowed-once', 'rejected', 'cancelled', 'unavailable'].includes(v)) return v
    } else if (seam === 'user-questions/request') {
      if (Array.isArray(v?.answers)) {
        return { answers: v.answers.map((a) => ({ id: String(a.id), selected: (a.selected ?? []).map(String), ...(typeof a.custom === 'string' ? { custom: a.custom } : {}) })) }
      }
    }
    return failClosed(seam, `the service answered ${JSON.stringify(v)}, which is no ${seam} verdict`)
  }

  // Context the service gives a system or developer role is system-prompt text of its agent
  // (voice.mjs); the rest stays messages. `start`: SessionStart's (the agent/created answer).
  const keepPlaced = (messages, agent, start = false) => messages.filter((m) => {
    if (!placed(m) || !agent) return true
    voice.keep(agent, m.text, { start })
    return false
  })
  const applyEffects = (effects, seam) => {
    for (const e of effects ?? []) {
      const agent = ctx.get('agents')?.get(e.agent)
      if (!agent) { logger.warn(`compat-adapter: ${e.op} for agent ${e.agent}, which is gone`); continue }
      if (e.op !== 'steer' && !keepPlaced([e.message], agent, seam === 'agent/created').length) continue
      agent[e.op === 'steer' ? 'steer' : 'inject'](dshMessage(e.message))
    }
  }

  // One forwarded event. `state` carries the waterfall's `next`, the messages this side sent (so
  // the ones that come back keep their identity) and what `next` returned. The answer timer runs
  // only while the service holds the dispatch: it is paused while `next` runs on this side.
  const forward = (seam, event, state) => new Promise((resolve) => {
    const id = `${seam}#${++dispatchIds}`
    Object.assign(state, { settled: false, timer: undefined, nextCall: undefined })
    const settle = (outcome) => {
      if (state.settled) return
      state.settled = true
      clearTimeout(state.timer)
      dispatches.delete(id)
      resolve(outcome)
    }
    state.arm = () => {
      clearTimeout(state.timer)
      state.timer = setTimeout(() => settle({ failed: `the service did not answer ${seam} within ${timeoutMs} ms` }), timeoutMs)
    }
    state.pause = () => clearTimeout(state.timer)
    state.seam = seam
    dispatches.set(id, state)
    state.arm()
    channel.request('dispatch', { seam, dispatch: id, event }).then(
      (reply) => settle({ reply }),
      (error) => settle({ failed: `the service failed ${seam}: ${error.message}` }),
    )
  })

  const makeListener = (seam) => {
    const encode = encoders[seam]
    if (WATERFALL.has(seam)) {
      return async (...args) => {
        const next = args.pop()
        // The post-execute result stays here: appended context follows its own blocks.
        const state = { known: new Map(), next, downstream: undefined, event: args[0],
          result: seam === 'tools/post-execute' ? args[1] : undefined }
        const outcome = await forward(seam, encode(...args, state.known), state)
        if (outcome.failed) return failClosed(seam, outcome.failed)
        applyEffects(outcome.reply.effects)
        if (outcome.reply.verdict === null || outcome.reply.verdict === undefined) {
          return failClosed(seam, 'the service returned no verdict')
        }
        return toVerdict(seam, outcome.reply.verdict, state)
      }
    }
    if (SERIAL.has(seam)) {
      return async (...args) => {
        if (seam === 'agent/created' && createdAlready.has(args[0])) return
        const outcome = await forward(seam, encode(...args, new Map()), {})
        if (outcome.failed) return void failClosed(seam, outcome.failed)
        applyEffects(outcome.reply.effects, seam)
      }
    }
    return (...args) => {
      // A child's start is announced before its first step, which DSH does not wait for: what
      // the service gives the child is held for that step (see the agent/pre-step barrier below).
      const child = seam === 'subagent/start' ? args[0]?.id : undefined
      let release
      if (child !== undefined) childStarts.set(child, new Promise((resolve) => { release = resolve }))
      const done = forward(seam, encode(...args, new Map()), {}).then((outcome) => {
        if (outcome.failed) logger.warn(`compat-adapter: ${seam}: ${outcome.failed}`)
        const effects = outcome.failed ? [] : (outcome.reply.effects ?? [])
        const held = child === undefined ? [] : effects.filter((e) => e.agent === child)
        applyEffects(effects.filter((e) => !held.includes(e)))
        release?.(held)
      })
      inflight.add(done)
      done.finally(() => inflight.delete(done))
    }
  }

  // A child's first step waits for the answer to its subagent/start, and enters what that answer
  // gave the child with the child's own task (an inject from an emit listener would land a step late).
  const childStarts = new Map()
  ctx.on('agent/pre-step', async (payload, next) => {
    const held = childStarts.get(payload.agent?.id)
    if (!held) return next()
    childStarts.delete(payload.agent.id)
    const effects = await held
    const decision = await next()
    if (decision?.kind !== 'enter' || !effects.length) {
      if (effects.length) applyEffects(effects)
      return decision
    }
    return { ...decision, messages: [...decision.messages, ...effects.map((e) => dshMessage(e.message))] }
  })
  ctx.on('subagent/end', (info) => { childStarts.delete(info?.id) })
  // The child's first assembly comes before that step: what the answer gives the child in the
  // system role is kept for its system prompt there, the rest still waits for the step.
  voice.beforeAssembly(async (agent) => {
    const held = childStarts.get(agent.id)
    if (!held) return
    const effects = await held
    childStarts.set(agent.id, Promise.resolve(effects.filter((e) => e.op === 'steer' || keepPlaced([e.message], agent).length)))
  })

  channel.onRequest('next', async ({ dispatch }) => {
    const state = dispatches.get(dispatch)
    if (!state || state.settled || !state.next) throw Object.assign(new Error(`no open waterfall ${dispatch}`), { code: 'PROTOCOL_ERROR' })
    if (!state.nextCall) {
      state.pause()
      state.nextCall = Promise.resolve(state.next()).finally(() => { if (!state.settled) state.arm() })
    }
    const verdict = await state.nextCall
    state.downstream = verdict
    const seam = state.seam
    const known = state.known
    if (seam === 'tools/post-execute') {
      return { kind: verdict.kind, feedback: verdict.feedback ? textOf(verdict.feedback) : null,
        additional_contexts: (verdict.additionalContexts ?? []).map((m) => messageJson(m, known)) }
    }
    if (seam === 'agent/pre-step') return { kind: verdict.kind, messages: (verdict.messages ?? []).map((m) => messageJson(m, known)) }
    if (seam === 'tools/execute') return resultJson(verdict)
    return verdict
  })

  // A tools/execute listener of the service runs the wrapped call's tool as a nested call with
  // other arguments (an input rewrite): through the registry's whole pipeline, as a composite tool
  // does, never by changing the wrapped call (its identity is immutable).
  channel.onRequest('execute_nested', async ({ dispatch, call_id: callId, arguments: args }) => {
    const state = dispatches.get(dispatch)
    if (!state || state.settled || state.seam !== 'tools/execute' || state.nestedCall) {
      throw Object.assign(new Error(`no open tools/execute dispatch ${dispatch}`), { code: 'PROTOCOL_ERROR' })
    }
    const tools = ctx.get('tools')
    if (!tools) throw new Error('this composition has no tool registry')
    const exec = state.event
    state.pause()
    state.nestedCall = Promise.resolve(tools.execute({
      callId, rootCallId: exec.rootCallId, name: exec.name, arguments: args,
      ...(exec.agent ? { agent: exec.agent } : {}), parent: exec.token, signal: exec.signal,
    })).finally(() => { if (!state.settled) state.arm() })
    state.nested = await state.nestedCall
    return resultJson(state.nested)
  })

  channel.onNotification('subscribe', ({ seam }) => {
    if (subscriptions.has(seam)) return
    if (!encoders[seam]) { logger.warn(`compat-adapter: the service subscribed to ${seam}, which this plugin cannot forward`); return }
    subscriptions.set(seam, seam === 'agent/pre-step' ? preStepAtAssembly() : ctx.on(seam, makeListener(seam)))
  })
  channel.onNotification('unsubscribe', ({ seam }) => {
    subscriptions.get(seam)?.()
    subscriptions.delete(seam)
  })
  channel.onNotification('notice', (n) => voice.notice(n))

  // agent/pre-step, forwarded at assembly for a step that claimed messages (voice.mjs says why):
  // the service answers with `next` standing for the default (enter the claimed batch); pre-step
  // then applies that answer to what the runtime's own chain enters. A step that claimed nothing
  // (a tool continuation) is forwarded at pre-step itself, as every other waterfall.
  const preStepAtAssembly = () => {
    const live = makeListener('agent/pre-step')
    voice.deciding(async (payload) => {
      const state = { known: new Map(), next: () => ({ kind: 'enter', messages: payload.messages }), event: payload }
      const outcome = await forward('agent/pre-step', encoders['agent/pre-step'](payload, state.known), state)
      if (outcome.failed) return { failed: outcome.failed }
      applyEffects(outcome.reply.effects)
      const v = outcome.reply.verdict
      if (v?.kind === 'enter') return { kind: 'enter', known: state.known, messages: keepPlaced(v.messages ?? [], payload.agent) }
      if (v?.kind === 'reject') return { kind: 'reject' }
      return { failed: `the service answered ${JSON.stringify(v)}, which is no agent/pre-step verdict` }
    })
    const off = ctx.on('agent/pre-step', async (payload, next) => {
      const decided = voice.takeEarly(payload.agent?.id)
      let verdict
      if (decided === undefined) verdict = await live(payload, next)
      else if (decided.failed) verdict = failClosed('agent/pre-step', decided.failed)
      else if (decided.kind === 'reject') verdict = { kind: 'reject' }
      else {
        const down = await next()
        if (down?.kind !== 'enter') return down
        verdict = { kind: 'enter', messages: enteredBatch(payload.messages, down.messages,
          decided.messages, (m) => dshMessage(m, decided.known), textOf) }
      }
      if (verdict?.kind === 'reject') voice.refused(payload.agent)
      return verdict
    })
    return () => { off(); voice.deciding(null) }
  }
  channel.onNotification('agent/inject', (e) => applyEffects([{ ...e, op: 'inject' }]))
  channel.onNotification('agent/steer', (e) => applyEffects([{ ...e, op: 'steer' }]))
  channel.onNotification('session/append', ({ session, type, data }) => {
    const s = ctx.get('sessions')?.get(session)
    if (!s) { logger.warn(`compat-adapter: ${type} for session ${session}, which is gone`); return }
    try { s.append(type, data) } catch (error) { logger.warn(`compat-adapter: could not append ${type}: ${error.message}`) }
  })
  channel.onNotification('log', ({ level, message, fields }) => {
    const method = level === 'error' || level === 'critical' ? 'error' : level === 'warning' ? 'warn' : level === 'debug' ? 'debug' : 'info'
    logger[method](`compat-adapter service: ${message}${fields && Object.keys(fields).length ? ' ' + JSON.stringify(fields) : ''}`)
  })

  // The real official bridges, on the config the service wrote. The log lines a mount writes
  // are captured only while it mounts (its warnings), so nothing grows with the mounts made.
  const capturing = new Set()
  ctx.effect(() => ctx.logger.exporter({ levels: { default: 2 }, export: (message) => { for (const c of capturing) c.push(message) } }))
  // Services this plugin provides for the bridges it mounts, each held by the mounts that need it
  // and disposed with the last one: rc.1 of the Codex bridge injects `bash`, which rc.8 calls
  // `shell` (same contract), so a Codex mount holds a `bash` alias of `shell`.
  const held = new Map()
  const holdAlias = (mountId) => {
    if (ctx.get('bash') && !held.has('bash')) return false
    if (!held.has('bash')) {
      if (!ctx.get('shell')) return false
      held.set('bash', { dispose: ctx.reflect.provide('bash', ctx.get('shell')), holders: new Set() })
    }
    held.get('bash').holders.add(mountId)
    return true
  }
  const releaseHolds = async (mountId) => {
    for (const [service, entry] of held) {
      entry.holders.delete(mountId)
      if (entry.holders.size) continue
      held.delete(service)
      await entry.dispose()
    }
  }
  channel.onRequest('mount_bridge', async ({ package: pkg, config_path: configPath, user }) => {
    if (!BRIDGES.includes(pkg)) throw new Error(`${pkg} is not an official bridge package`)
    const module = await load(pkg)
    const id = `mount-${++mountIds}`
    if (pkg === CODEX_BRIDGE) holdAlias(id)
    const seen = []
    capturing.add(seen)
    let fiber
    try {
      fiber = ctx.plugin(module, { configPath, ...(config.projectDir ? { projectDir: config.projectDir } : {}) })
      await Promise.race([fiber, new Promise((_, reject) => setTimeout(() => reject(new Error(`${pkg} did not start within 10 s (missing service?)`)), 10_000))])
    } catch (error) {
      await fiber?.dispose?.()
      await releaseHolds(id)
      throw error
    } finally {
      capturing.delete(seen)
    }
    const warnings = seen.map((m) => m.args.map(String).join(' ')).filter((t) => t.includes(configPath))
    mounts.set(id, { fiber, user: user ?? null })
    return { mount: id, loaded: !warnings.some((w) => w.includes('could not load hook config')), warnings }
  })
  const unmount = async (id) => {
    const mounted = mounts.get(id)
    mounts.delete(id)
    if (mounted) await mounted.fiber.dispose()
    await releaseHolds(id)
  }
  channel.onRequest('unmount_bridge', async ({ mount }) => { await unmount(mount); return {} })
  // A user is done with a service: what it still holds there goes (its bridge mounts).
  channel.onRequest('release', async ({ service, user }) => {
    if (service !== 'bridges') return { released: 0 }
    const ids = [...mounts].filter(([, m]) => m.user === user).map(([id]) => id)
    for (const id of ids) await unmount(id)
    return { released: ids.length }
  })
  // A barrier for the host: every event forwarded so far has its answer (DSH waits for no emit, so
  // after a turn the host asks this before it reads what the emits' listeners did).
  channel.onRequest('settle', async () => { while (inflight.size) await Promise.all([...inflight]); return {} })
  // What this plugin holds now, for status and for the checks that nothing outlives its user.
  channel.onRequest('plugin.state', async () => ({
    subscriptions: [...subscriptions.keys()].sort(), mounts: mounts.size, services: [...held.keys()],
    dispatches: dispatches.size, inflight: inflight.size, capturing: capturing.size,
  }))

  // The composition's own model for prompt and agent hooks: one call without tools, on the provider
  // route and model of a live agent (the named one, else the first); the service reads the text.
  channel.onRequest('complete', async ({ agent: agentId, system, prompt }) => {
    const agents = ctx.get('agents')
    const agent = (agentId ? agents?.get(agentId) : undefined) ?? agents?.list?.()?.[0]
    const { provider, model } = agent?.options ?? {}
    if (!provider || !model) throw new Error('no live agent names a provider and model to ask')
    const message = createUserMessage({ content: [{ type: 'text', text: prompt }], source: { kind: 'compat-adapter' } })
    let text = ''
    for await (const chunk of ctx.get('llm').stream({ provider, model, system, messages: [message] })) {
      if (chunk.type === 'text-delta') text += chunk.text
      else if (chunk.type === 'finish' && chunk.reason?.kind !== 'stop') {
        throw new Error(`the model call ended with ${chunk.reason?.kind}: ${chunk.reason?.failure?.message ?? ''}`)
      }
    }
    return { text }
  })

  // Always on: the service keeps a mirror of every session log, and forgets agents that are gone.
  ctx.on('session/event', forwardRecords(ctx, channel, sessionJson))
  ctx.on('agent/disposed', ({ agent }) => channel.notify('agent/gone', { id: agent.id }))

  channel.onClose.push((reason) => logger.warn(`compat-adapter: the service channel closed (${reason}); forwarded seams fail closed`))
  ctx.effect(() => () => {
    for (const off of subscriptions.values()) off()
    subscriptions.clear()
    if (!config.channel) channel.close('plugin disposed')
  })

  // What the bundle brings to a composition that lacks it (see the functions below `describe`).
  await composeWorkspaceChanges(ctx, logger)
  const relays = relayShellEnv(ctx, channel, logger, executionJson, timeoutMs) ? ['shellEnv'] : []

  // Publish the composition, then register what the profile config declares.
  const composition = { ...describe(ctx, Object.keys(encoders).concat(['session/event'])), relays, context_roles: CONTEXT_ROLES }
  const hello = await channel.request('hello', { protocol: PROTOCOL, host: 'dsh', cwd: config.cwd ?? process.cwd(), composition })
  const said = (result) => logger.info(`compat-adapter: ${result.id} ${result.capability} ${result.route ?? ''}${result.reason ? ' — ' + result.reason : ''}`)
  for (const hook of config.hooks ?? []) said(await channel.request('register_hook', hook))
  for (const rules of config.rules ?? []) said(await channel.request('register_rules', rules))

  // The workspace's own vendor files, once per session folder, before the session's first step:
  // the service imports them under the CLI's trust rules (an untrusted file is reported, never run).
  const imported = new Map()
  const createdAlready = new WeakSet()
  const importWorkspace = (root) => {
    if (!imported.has(root)) {
      imported.set(root, channel.request('import_workspace', { root }).then((report) => {
        for (const r of report.registered) said(r)
        for (const r of report.refused) logger.warn(`compat-adapter: ${r.origin ?? r.what}: ${r.code} — ${r.reason}`)
        return report
      }, (error) => { logger.warn(`compat-adapter: could not import ${root}: ${error.message}`); return null }))
    }
    return imported.get(root)
  }
  if (config.workspace !== false) {
    ctx.on('agent/created', async (payload) => {
      const { agent } = payload
      const had = subscriptions.has('agent/created')
      const report = await importWorkspace(agent.session?.header?.cwd ?? config.cwd ?? process.cwd())
      // The folder's own SessionStart hooks were registered during this very agent/created, whose
      // listeners the runtime had already taken: this start is forwarded to them here, once.
      if (!had && subscriptions.has('agent/created')) {
        await makeListener('agent/created')(payload)
        createdAlready.add(payload)
      }
      // Every session starts by telling the person which of the folder's hooks are held back.
      for (const [text, file] of report?.held ?? []) voice.notice({ kind: 'held', text, session: agent.id, origin: file })
    })
  }

  // The `compatAdapter` service other plugins inject: each answer is the service's own result,
  // frozen, as the Python API returns it.
  const ask = async (method, params) => deepFreeze(await channel.request(method, params))
  const service = Object.freeze({
    hello: deepFreeze(hello),
    registerHook: ({ vendor, event, matcher = null, handler, id = null, prefer = null, origin = null }) =>
      ask('register_hook', { vendor, event, matcher, handler, id, prefer, origin }),
    registerRules: ({ vendor, source, baseDir = null, id = null }) => ask('register_rules', { vendor, source, base_dir: baseDir, id }),
    matrix: () => ask('matrix', {}),
    status: () => ask('status', { audit: 0 }),
    importWorkspace: (root) => importWorkspace(root),
    dispose: async () => { await ask('dispose', {}); channel.close('disposed by a consumer') },
    settle: async () => { while (inflight.size) await Promise.all([...inflight]) },
    channel,
  })
  // Provided the Cordis way (a row that lists it in `inject` starts once it exists); disposed with this plugin.
  ctx.effect(() => ctx.reflect.provide(SERVICE, service))
  config.ready?.(service)
}

// What the composition has: provided Cordis services, the runtime's version, loadable bridges,
// the seams this plugin can forward, the model-facing tools.
export function describe(ctx, forwards) {
  const store = ctx.reflect.store
  const services = [...new Set(Reflect.ownKeys(store).map((k) => store[k]?.name).filter((n) => typeof n === 'string'))]
  let version = null
  try { version = JSON.parse(readFileSync(requireHere.resolve('@deepseek-ai/dsh/package.json'), 'utf8')).version } catch {}
  const bridges = BRIDGES.filter(resolves)
  const tools = {}
  try {
    for (const [n, d] of ctx.get('tools')?.view?.().visible ?? []) tools[n] = plainSchema(d?.parameters ?? d?.inputSchema ?? d?.input ?? null)
  } catch {}
  const settings = ctx.get('settings')
  // The profile booted (sdk, headless, web …): what a person can do in it besides prompting.
  const profile = ctx.get('profileContext')?.name ?? null
  return { services, version, bridges, forwards, tools, settings_writable: settings?.writable === true, profile }
}

// ── What the bundle brings (kept apart from the seam glue above) ──────────────────────────────

// DSH's own recorder of each turn's changed files (`workspace/changes` records, summaries served as
// `workspaceChanges`), which the shipped `web` bundle composes and `sdk`/`headless` do not: composed
// here where the runtime has it and the composition has none yet. It needs `subprocess` and `fs`.
const COMPOSED_BY_THEIR_BUNDLE = new Set(['web'])
export async function composeWorkspaceChanges(ctx, logger) {
  if (ctx.get('workspaceChanges') || COMPOSED_BY_THEIR_BUNDLE.has(ctx.get('profileContext')?.name)) return false
  let module
  try {
    module = await load('@deepseek-ai/dsh-workspace-changes')
  } catch {
    try {  // the executable keeps it with the web app that composes it
      const beside = createRequire(requireHere.resolve('@deepseek-ai/dsh-web-app/package.json'))
      module = await import(pathToFileURL(beside.resolve('@deepseek-ai/dsh-workspace-changes')).href)
    } catch (error) {
      logger.warn(`compat-adapter: DSH's workspace-changes recorder is not in this runtime (${error.message})`)
      return false
    }
  }
  const fiber = ctx.plugin(module, {})
  try {
    await Promise.race([fiber, new Promise((_, reject) => setTimeout(() => reject(new Error('did not start within 10 s')), 10_000))])
  } catch (error) {
    logger.warn(`compat-adapter: DSH's workspace-changes recorder could not start: ${error.message}`)
    await fiber?.dispose?.()
    return false
  }
  return true
}

// Every durable record, in order, to the service's session mirror. A `workspace/changes` record
// names only its turn; the recorder sets the summary it announces right after appending it, so
// the record (and whatever follows it) goes a microtask later, with the summary's files.
export function forwardRecords(ctx, channel, sessionJson) {
  let queue = null
  const send = (session, event) => {
    if (event.type === 'workspace/changes') {
      const summary = ctx.get('workspaceChanges')?.summary?.(session.id, event.seq)
      const files = (summary?.files ?? []).map(({ path, display, added, deleted }) => ({ path, display, added, deleted }))
      event = { ...event, data: { ...event.data, files } }
    }
    channel.notify('session/event', { session: sessionJson(session), event })
  }
  return (session, event) => {
    if (!queue && event.type !== 'workspace/changes') return send(session, event)
    const mine = (queue ?? Promise.resolve()).then(() => send(session, event))
    queue = mine
    mine.then(() => { if (queue === mine) queue = null })
  }
}

// DSH asks its `shellEnv` registry synchronously inside the shell tool (`ctx.shellEnv.collect(exec)`),
// so nothing can be awaited there: while the service has a shell-environment hook (it says so with
// `shell_env/relay`), each shell call asks the service from `tools/execute` (after approval, just
// before the tool runs) and the registry is given that call's answer. The registry's own rules
// stand: a contributor declares its keys (DSH_ + [A-Z][A-Z0-9_]*, not reserved, not another's).
const SHELL_TOOLS = new Set(['bash', 'pwsh'])
const RESERVED_SHELL_KEYS = new Set(['DSH_HOME', 'DSH_SHELL', 'DSH_SESSION_ID', 'DSH_PROFILE', 'DSH_PROFILE_DIR'])
const SHELL_KEY = /^DSH_[A-Z][A-Z0-9_]*$/
export function relayShellEnv(ctx, channel, logger, executionJson, timeoutMs) {
  const registry = ctx.get('shellEnv')
  if (!registry) return false
  const byCall = new Map()
  let declared = []
  let unregister
  let off
  const register = (keys) => registry.register({
    name: 'compat-adapter',
    variables: Object.fromEntries(keys.map((k) => [k, { description: 'set by a compat-adapter shell-environment hook' }])),
    resolve: (exec) => Object.fromEntries(Object.entries(byCall.get(exec.callId) ?? {}).filter(([k]) => keys.includes(k))),
  })
  const declare = (keys) => {
    for (const key of keys) {
      if (declared.includes(key) || !SHELL_KEY.test(key) || RESERVED_SHELL_KEYS.has(key)) continue
      unregister?.()
      try {
        unregister = register([...declared, key])
        declared = [...declared, key]
      } catch (error) {
        logger.warn(`compat-adapter: ${key} cannot be set in DSH's shell environment: ${error.message}`)
        unregister = declared.length ? register(declared) : undefined
      }
    }
  }
  const ask = (exec) => {
    let timer
    const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs) })
    return Promise.race([channel.request('shell_env', { execution: executionJson(exec) }), late]).finally(() => clearTimeout(timer))
  }
  const listener = async (exec, next) => {
    if (!SHELL_TOOLS.has(exec.name)) return next()
    let env = {}
    try { env = (await ask(exec))?.env ?? {} } catch (error) { logger.warn(`compat-adapter: shell-environment hooks: ${error.message}`) }
    declare(Object.keys(env))
    byCall.set(exec.callId, env)
    try { return await next() } finally { byCall.delete(exec.callId) }
  }
  channel.onNotification('shell_env/relay', ({ on }) => {
    if (on && !off) off = ctx.on('tools/execute', listener)
    if (!on && off) {
      off()
      unregister?.()
      off = unregister = undefined
      declared = []
    }
  })
  return true
}

function plainSchema(schema) {
  try { return JSON.parse(JSON.stringify(schema ?? null)) } catch { return null }
}

function spawnService(command, cwd) {
  const child = spawn(command[0], command.slice(1), { cwd, stdio: ['pipe', 'pipe', 'inherit'] })
  const channel = new Channel(child.stdout, child.stdin, 'compat-adapter service')
  child.on('error', (error) => channel.close(`the service could not start (${error.message})`))
  child.on('exit', (code, signal) => channel.close(`the service exited (${signal ?? code})`))
  child.stdin.on('error', () => channel.close('the service stopped reading'))
  channel.onClose.push(() => { if (child.exitCode === null) child.stdin.end() })
  return channel
}

// A service already listening on a unix socket (a host that holds the service side itself).
function connectService(path) {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path)
    socket.once('error', reject)
    socket.once('connect', () => {
      socket.off('error', reject)
      const channel = new Channel(socket, socket, 'compat-adapter service')
      socket.on('error', () => channel.close('the service socket failed'))
      socket.on('close', () => channel.close('the service socket closed'))
      channel.onClose.push(() => socket.end())
      resolve(channel)
    })
  })
}
