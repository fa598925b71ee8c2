// A scripted model for a real DSH agent loop: an LlmAdapter whose answers come from a list.
// One step is {text?, tools?: [{name, arguments, call_id?}], error?} (the JSON form of
// compat_adapter.host.script); when the list is used up it says "(script exhausted)" and stops.
export const EXHAUSTED_TEXT = '(script exhausted)'

export function scriptedAdapter(LlmAdapter) {
  return class ScriptedModel extends LlmAdapter {
    constructor(steps) {
      super()
      this.steps = [...steps]
      this.calls = 0
    }

    providerInfo(provider) { return { id: provider, name: `scripted ${provider}` } }

    async listModels(provider) { return [{ provider, id: 'scripted-1', name: 'scripted' }] }

    async *stream(options) {
      const step = this.steps.length ? this.steps.shift() : { text: EXHAUSTED_TEXT }
      if (step.error !== undefined) {
        yield { type: 'finish', reason: { kind: 'error', failure: { message: String(step.error), code: 'SCRIPTED_ERROR' } } }
        return
      }
      let index = 0
      if (step.text) {
        yield { type: 'block-start', index, blockType: 'text' }
        yield { type: 'text-delta', index, text: step.text }
        yield { type: 'block-end', index, block: { type: 'text', text: step.text } }
        index++
      }
      const tools = step.tools ?? []
      for (const tool of tools) {
        const id = tool.call_id ?? `call-${++this.calls}`
        const args = JSON.stringify(tool.arguments ?? {})
        yield { type: 'block-start', index, blockType: 'tool-call' }
        yield { type: 'tool-call-delta', index, id, name: tool.name, argumentsDelta: args }
        yield { type: 'block-end', index, block: { type: 'tool-call', id, name: tool.name, arguments: args } }
        index++
      }
      yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } }
      yield { type: 'finish', reason: { kind: tools.length ? 'tool-calls' : 'stop' } }
    }
  }
}
