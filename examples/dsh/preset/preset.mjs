// An example preset plugin: it registers one Claude Code hook through the compatAdapter service
// and writes the frozen result it got. Config: { guard: <command>, report?: <file> }; both may
// come from the environment (COMPAT_ADAPTER_PRESET_GUARD, COMPAT_ADAPTER_PRESET_REPORT).
import { writeFileSync } from 'node:fs'

export const name = 'compat-adapter-example-preset'
export const inject = ['compatAdapter']

export async function apply(ctx, config = {}) {
  const guard = config.guard ?? process.env.COMPAT_ADAPTER_PRESET_GUARD
  const report = config.report ?? process.env.COMPAT_ADAPTER_PRESET_REPORT
  const adapter = ctx.get('compatAdapter')
  const result = await adapter.registerHook({ vendor: 'claude', event: 'PreToolUse', matcher: 'Bash', handler: guard })
  const status = await adapter.status()
  if (report) writeFileSync(report, JSON.stringify({ result, frozen: Object.isFrozen(result) && Object.isFrozen(result.degradations ?? []), hooks: status.hooks.length }))
}
