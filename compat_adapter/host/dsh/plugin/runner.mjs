// Boot a real DSH 0.1.0-rc.8 composition with a scripted model and the compat-adapter plugin.
//
//   node runner.mjs --modules <node_modules> --cwd <dir> [--answer-timeout-ms N]
//     Host mode: this process's stdin/stdout is the channel to a Python DshHost, which also drives
//     the agents (agent.create, agent.run, session.events, agent.dispose, log.read, shutdown).
//   node runner.mjs --modules <node_modules> --cwd <dir> --service '<argv JSON>' --scenario <file>
//     Plugin mode: the plugin spawns `compat-adapter serve --stdio` itself, registers the
//     scenario's hooks and rules, runs its agents and prints the outcome as one JSON object.
//
// Every part is the published package except the settings store (in memory) and the model.
import { parseArgs } from 'node:util'
import { readFileSync } from 'node:fs'
import { Channel } from './channel.mjs'
import * as plugin from './plugin.mjs'
import { scriptedAdapter } from './scripted-model.mjs'

const { values: opts } = parseArgs({ options: {
  modules: { type: 'string' }, cwd: { type: 'string' }, 'answer-timeout-ms': { type: 'string' },
  service: { type: 'string' }, scenario: { type: 'string' },
} })
const load = plugin.importer(opts.modules)
const cwd = opts.cwd ?? process.cwd()

const [cordis, settings, llm, session, systemPrompt, approval, tools, agents, subprocess, bashLocal,
  shellEnv, toolBash, toolTodo, agentLoop] = await Promise.all([
  '@deepseek-ai/cordis', '@deepseek-ai/dsh-settings', '@deepseek-ai/dsh-llm', '@deepseek-ai/dsh-session',
  '@deepseek-ai/dsh-system-prompt', '@deepseek-ai/dsh-user-approval', '@deepseek-ai/dsh-tools',
  '@deepseek-ai/dsh-agent', '@deepseek-ai/dsh-subprocess-local', '@deepseek-ai/dsh-bash-local',
  '@deepseek-ai/dsh-shell-env', '@deepseek-ai/dsh-tool-bash', '@deepseek-ai/dsh-tool-todo',
  '@deepseek-ai/dsh-agent-loop',
].map(load))

// The one stand-in besides the model: settings kept in memory (rc.8 ships only file providers).
class MemorySettings extends settings.SettingsProvider {
  get writable() { return false }
  async load() { return {} }
  async persist() {}
}
const ScriptedModel = scriptedAdapter(llm.LlmAdapter)

const ctx = new cordis.Context()
const records = []
ctx.logger.exporter({ levels: { default: 2 }, export: (m) => records.push({ name: m.name, type: m.type, text: m.args.map(String).join(' ') }) })
await ctx.plugin(MemorySettings)
await ctx.plugin(llm.default)
await ctx.plugin(session.default)
await ctx.plugin(systemPrompt.default)
await ctx.plugin(approval.default)
await ctx.plugin(tools.default)
await ctx.plugin(agents.default)
await ctx.plugin(subprocess.default)
await ctx.plugin(bashLocal.default, { cwd })
await ctx.plugin(shellEnv)
await ctx.plugin(toolBash)
await ctx.plugin(toolTodo, { allowParallelInProgress: true })
await ctx.plugin(agentLoop.default, { agents: [] })

const handles = new Map()
let agentCount = 0
let pluginApi
let ready
const pluginReady = new Promise((resolve) => { ready = (api) => { pluginApi = api; resolve(api) } })

async function createAgent(steps, agentCwd) {
  const n = ++agentCount
  const provider = `scripted-${n}`
  ctx.llm.registerAdapter([provider], new ScriptedModel(steps ?? []))
  const id = session.SessionId(`agent-${n}-${Math.random().toString(36).slice(2, 8)}`)
  const handle = await ctx.agents.create({ sessionId: id, meta: { cwd: agentCwd ?? cwd }, agentOptions: { provider, model: 'scripted-1' } })
  handles.set(String(handle.agent.id), handle)
  return handle.agent
}

async function runTurn(agent, prompt, adapter) {
  const before = agent.session.events.length
  agent.followup(llm.createUserMessage({ content: [{ type: 'text', text: prompt }], source: { kind: 'user' } }))
  // followup wakes the driver asynchronously: wait until this turn has ended and the agent is idle.
  for (;;) {
    await new Promise((r) => setImmediate(r))
    await agent.whenIdle()
    const ended = agent.session.events.slice(before).filter((e) => e.type === 'turn/end')
    if (ended.length && agent.status === 'idle') break
  }
  await adapter.settle()
  const events = agent.session.events.slice(before)
  const end = events.filter((e) => e.type === 'turn/end').at(-1)
  return { turn: end?.data.turn ?? null, reason: end?.data.reason?.kind ?? null,
    steps: events.filter((e) => e.type === 'step/start').length }
}

const plain = (value) => JSON.parse(JSON.stringify(value))
const agentOf = (id) => {
  const agent = ctx.agents.get(id)
  if (!agent) throw Object.assign(new Error(`no live agent ${id}`), { code: 'PROTOCOL_ERROR' })
  return agent
}

if (opts.service) {
  // Plugin mode: the composition owns the service process, as it would in production.
  const scenario = JSON.parse(readFileSync(opts.scenario, 'utf8'))
  ctx.plugin(plugin, {
    modules: opts.modules, cwd, command: JSON.parse(opts.service), hooks: scenario.hooks, rules: scenario.rules, ready,
    ...(opts['answer-timeout-ms'] ? { answerTimeoutMs: Number(opts['answer-timeout-ms']) } : {}),
  })
  await pluginReady
  const results = []
  for (const spec of scenario.agents ?? []) {
    const agent = await createAgent(spec.script, spec.cwd)
    await pluginApi.settle()
    const turns = []
    for (const prompt of spec.prompts ?? []) turns.push(await runTurn(agent, prompt, pluginApi))
    results.push({ agent: String(agent.id), turns, events: plain(agent.session.events) })
  }
  const status = await pluginApi.channel.request('status', {})
  process.stdout.write(JSON.stringify({ hello: pluginApi.hello, status, results, log: records }) + '\n')
  pluginApi.channel.close('scenario done')
  process.exit(0)
} else {
  // Host mode: our own stdio is the channel; the Python side drives.
  const channel = new Channel(process.stdin, process.stdout, 'compat-adapter host')
  channel.onRequest('agent.create', async ({ script, cwd: agentCwd }) => {
    await pluginReady
    const agent = await createAgent(script, agentCwd)
    await pluginApi.settle()
    return { agent: { id: String(agent.id), session: { id: String(agent.session.header?.id ?? agent.id), cwd: agent.session.header?.cwd ?? null, transcript_path: null }, parent_id: null } }
  })
  channel.onRequest('agent.run', async ({ agent, prompt }) => runTurn(agentOf(agent), prompt, await pluginReady))
  channel.onRequest('session.events', async ({ agent }) => ({ events: plain(agentOf(agent).session.events) }))
  channel.onRequest('agent.dispose', async ({ agent }) => {
    const handle = handles.get(agent)
    handles.delete(agent)
    if (handle) await handle.dispose()
    await pluginApi.settle()
    return {}
  })
  channel.onRequest('log.read', async () => ({ records }))
  channel.onRequest('shutdown', async () => {
    for (const handle of handles.values()) await handle.dispose()
    handles.clear()
    setImmediate(() => { channel.close('shutdown'); process.exit(0) })
    return {}
  })
  channel.onClose.push(() => setImmediate(() => process.exit(0)))
  ctx.plugin(plugin, {
    modules: opts.modules, cwd, channel, ready,
    ...(opts['answer-timeout-ms'] ? { answerTimeoutMs: Number(opts['answer-timeout-ms']) } : {}),
  })
}
