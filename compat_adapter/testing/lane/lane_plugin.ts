// The vendor lane's OpenCode plugin: it records every call of the hooks it implements and acts
// as the scenario says (lane_rules.json next to the .opencode folder). Copied into a run's project.
import { appendFileSync, readFileSync } from "node:fs"

const rulesPath = new URL("../lane_rules.json", import.meta.url)
const rules = JSON.parse(readFileSync(rulesPath, "utf8"))

function record(event: string, input: unknown, output: unknown) {
  appendFileSync(rules.log, JSON.stringify({ event, t: Date.now() / 1000, stdin: { input, output } }) + "\n")
}

const hooks: Record<string, (input: any, output: any) => Promise<void>> = {
  "chat.message": async (input: any, output: any) => {
    record("chat.message", input, output)
    if (rules.message_throw) throw new Error(rules.message_throw)
    if (rules.message_append) {
      const first = output.parts[0] ?? {}
      output.parts.push({ ...first, id: (first.id ?? "prt_lane") + "z", type: "text", text: rules.message_append })
    }
  },
  "experimental.chat.system.transform": async (input: any, output: any) => {
    record("experimental.chat.system.transform", input, { count: output.system.length })
    if (rules.system_append) output.system.push(rules.system_append)
  },
  "tool.execute.before": async (input: any, output: any) => {
    record("tool.execute.before", input, output)
    if (rules.throw) throw new Error(rules.throw)
    if (rules.set_args) Object.assign(output.args, rules.set_args)
  },
  "tool.execute.after": async (input: any, output: any) => {
    record("tool.execute.after", input, output)
    if (rules.after_throw) throw new Error(rules.after_throw)
    if (rules.append_output) output.output += rules.append_output
  },
}

// `keys`: the callbacks this case's plugin has (the port lane's source file has its scenario's own
// only, as every other source's config has one hook); without it, all four record.
export const LanePlugin = async () =>
  Object.fromEntries(Object.entries(hooks).filter(([key]) => !rules.keys || rules.keys.includes(key)))
