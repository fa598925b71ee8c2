// Test lane only (see __init__.py): DSH's own UI actions, asked for over the compat-adapter
// bundle's channel by the live checks. Each request names the agent (its session id).
export const name = 'compat-adapter-lane-controls'
export const inject = ['compatAdapter', 'agents', 'commands', 'compaction', 'userQuestions']

const LIMIT_MS = 120_000

export function apply(ctx) {
  const channel = ctx.compatAdapter.channel
  const agentOf = (id) => {
    const agent = ctx.agents.get(id)
    if (!agent) throw new Error(`no live agent ${id}`)
    return agent
  }
  // A command a user can type (`/review now`): it logs command/run and command/done, as any does.
  ctx.effect(() => ctx.commands.register({
    name: 'review', description: 'review the work so far', input: { hint: 'what to review' },
    handler: ({ rawInput }) => ({ kind: 'success', text: `reviewed ${rawInput}` }),
  }))
  channel.onRequest('lane.compact', async ({ agent }) => {
    const result = await ctx.compaction.compactNow(agentOf(agent), AbortSignal.timeout(LIMIT_MS))
    return { compacted: result !== null && result !== undefined }
  })
  channel.onRequest('lane.command', async ({ agent, line }) => {
    const done = await ctx.commands.execute(agentOf(agent), line, [], AbortSignal.timeout(LIMIT_MS))
    return { ran: done !== undefined, kind: done?.result?.kind ?? null, text: done?.result?.text ?? null }
  })
  channel.onRequest('lane.cancel', async ({ agent }) => {
    agentOf(agent).cancel(new Error('interrupted by the user'))
    return {}
  })
  // What DSH's ask_user_question tool does (no shipped profile composes it for the SDK): the
  // questions go down DSH's own user-questions/request chain, and the answer comes back.
  channel.onRequest('lane.ask', async ({ agent, questions }) => {
    try {
      return { answer: await ctx.userQuestions.ask({ questions, agent: agentOf(agent), signal: AbortSignal.timeout(LIMIT_MS) }) }
    } catch (error) {
      return { error: String(error?.message ?? error), code: error?.code ?? null }
    }
  })
  channel.onRequest('lane.status', async ({ agent }) => ({ status: agentOf(agent).status ?? null }))
}
