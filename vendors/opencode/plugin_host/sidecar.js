// The JS side of the OpenCode plugin host: loads a project's OpenCode plugins for real and calls
// their hooks when the Python side asks. Runs under Bun (the runtime OpenCode runs plugins on),
// started by vendors/opencode/plugin_host/sidecar.py in its own process group.
//
// The channel: requests arrive as JSON lines on stdin ({id, method, params}); replies leave as
// JSON lines on the pipe named by COMPAT_ADAPTER_PLUGIN_CHANNEL_FD ({id, result} or {id, error}) and so do notifications ({method, params}).
// stdout and stderr stay the plugins' own: a plugin that prints, or whose `$` command prints,
// cannot corrupt the channel.
//
// Methods: load, call, ping, dispose. See sidecar.py for the shapes.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const CHANNEL_FD = Number(process.env.COMPAT_ADAPTER_PLUGIN_CHANNEL_FD ?? 3);
delete process.env.COMPAT_ADAPTER_PLUGIN_CHANNEL_FD;

function send(message) {
  let line;
  try {
    line = JSON.stringify(message);
  } catch (err) {
    line = JSON.stringify({ id: message.id, error: { message: `reply not serialisable: ${err}` } });
  }
  const data = Buffer.from(line + "\n", "utf8");
  let off = 0;
  while (off < data.length) off += fs.writeSync(CHANNEL_FD, data, off);
}

function notify(method, params) {
  send({ method, params });
}

function errorText(err) {
  if (err instanceof Error) return err.message;
  // OpenCode shows what was thrown; a thrown string is its own message.
  return typeof err === "string" ? err : String(err);
}

// ── the context OpenCode gives a plugin, reduced to what this host can serve ──
// Every client call the host cannot serve throws with the same sentence and is reported once, so
// the Python side can list it as a loss of the plugin that made it.
const missingReported = new Set();

function unavailable(what) {
  return async () => {
    if (!missingReported.has(what)) {
      missingReported.add(what);
      notify("missing", { part: what });
    }
    throw new Error(`compat-adapter plugin host: client.${what} is not available on this host`);
  };
}

function makeClient() {
  const served = {
    app: {
      // OpenCode's app.log writes a structured log line; here it goes to the host's log.
      log: async (opts = {}) => {
        const body = opts.body ?? {};
        notify("log", { level: body.level ?? "info", service: body.service ?? "plugin",
                        message: String(body.message ?? ""), extra: body.extra ?? null });
        return { data: true };
      },
    },
    tui: {
      showToast: async (opts = {}) => {
        const body = opts.body ?? {};
        notify("log", { level: body.variant === "error" ? "error" : "info", service: "toast",
                        message: String(body.message ?? ""), extra: { title: body.title ?? null } });
        return { data: true };
      },
    },
  };
  const group = (name, known) => new Proxy(known ?? {}, {
    get(target, prop) {
      if (typeof prop !== "string" || prop === "then") return undefined;
      return prop in target ? target[prop] : unavailable(`${name}.${prop}`);
    },
  });
  return new Proxy({}, {
    get(_target, prop) {
      if (typeof prop !== "string" || prop === "then") return undefined;
      return group(prop, served[prop]);
    },
  });
}

// ── loading ──
const hooksById = new Map(); // plugin id → the hooks object it returned
const moduleCache = new Map();

function resolveNpm(spec, searchDirs) {
  for (const dir of searchDirs) {
    try {
      return Bun.resolveSync(spec, dir);
    } catch {
      // not installed there; try the next folder
    }
  }
  return null;
}

function pluginFunctions(mod) {
  // OpenCode calls every exported plugin function once (the same function exported twice runs
  // once); a default export may also be a module object {id?, server}.
  const seen = new Set();
  const out = [];
  for (const [name, value] of Object.entries(mod)) {
    let fn = value;
    if (fn && typeof fn === "object" && typeof fn.server === "function") fn = fn.server;
    if (typeof fn !== "function" || seen.has(fn)) continue;
    seen.add(fn);
    out.push([name, fn]);
  }
  return out;
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function shellIn(directory) {
  const shell = new Bun.$.Shell();
  shell.cwd(directory);
  return shell;
}

async function load(params) {
  const directory = params.directory;
  const worktree = params.worktree ?? directory;
  const context = {
    project: params.project ?? { id: "global", worktree, time: { created: Date.now() } },
    directory,
    worktree,
    serverUrl: new URL(params.serverUrl ?? "http://127.0.0.1:4096"),
    client: makeClient(),
    // A shell of its own per load: Bun.$.cwd() would move the default of every other plugin's `$`.
    $: shellIn(directory),
    experimental_workspace: { register() {} },
  };
  const results = [];
  for (const source of params.sources) {
    const entry = { source: source.id, exports: [], error: null };
    results.push(entry);
    try {
      let file = source.path;
      if (source.kind === "npm") {
        file = resolveNpm(source.spec, params.searchDirs ?? []);
        if (file === null) {
          entry.error = `npm plugin ${source.spec} is not installed (run scripts/plugin_lane.sh --project ${directory})`;
          entry.missing = true;
          continue;
        }
      }
      file = path.resolve(directory, file);
      if (source.kind === "file" && !fs.existsSync(file)) {
        // Said plainly: the import error would name this script, not the project.
        entry.error = `the plugin file ${file} does not exist`;
        continue;
      }
      let mod = moduleCache.get(file);
      if (!mod) {
        mod = await withTimeout(import(pathToFileURL(file).href),
                                params.timeoutMs, `loading ${source.id}`);
        moduleCache.set(file, mod);
      }
      const fns = pluginFunctions(mod);
      if (fns.length === 0) {
        entry.error = "the module exports no plugin function";
        continue;
      }
      for (const [name, fn] of fns) {
        const id = `${source.id}#${name}`;
        try {
          const hooks = (await withTimeout(Promise.resolve(fn(context, source.options ?? undefined)),
                                           params.timeoutMs, `plugin ${id}`)) ?? {};
          hooksById.set(id, hooks);
          entry.exports.push({ id, name, keys: Object.keys(hooks) });
        } catch (err) {
          entry.exports.push({ id, name, keys: [], error: errorText(err) });
        }
      }
    } catch (err) {
      entry.error = errorText(err);
    }
  }
  return { plugins: results };
}

// ── calling ──
async function call(params) {
  // The hooks of one key run in load order, each on the same mutable output, as in OpenCode; the
  // first throw stops the rest and is the answer.
  const output = params.output ?? {};
  for (const id of params.plugins) {
    const hooks = hooksById.get(id);
    const fn = hooks?.[params.key];
    if (typeof fn !== "function") continue;
    try {
      if (params.key === "event") await fn({ event: params.input });
      else await fn(params.input ?? {}, output);
    } catch (err) {
      return { output, error: { plugin: id, message: errorText(err) } };
    }
  }
  return { output };
}

async function dispose() {
  for (const [id, hooks] of hooksById) {
    if (typeof hooks.dispose !== "function") continue;
    try {
      await withTimeout(Promise.resolve(hooks.dispose()), 2000, `dispose of ${id}`);
    } catch (err) {
      notify("log", { level: "warning", service: "plugin-host", message: `${id}: ${errorText(err)}` });
    }
  }
  hooksById.clear();
  return {};
}

const METHODS = { load, call, dispose, ping: async () => ({}) };

async function answer(message) {
  const method = METHODS[message.method];
  if (!method) {
    send({ id: message.id, error: { message: `unknown method ${message.method}` } });
    return;
  }
  try {
    send({ id: message.id, result: await method(message.params ?? {}) });
  } catch (err) {
    send({ id: message.id, error: { message: errorText(err) } });
  }
}

// A plugin's unhandled rejection must not end the host: OpenCode logs it and goes on.
process.on("unhandledRejection", (err) => {
  notify("log", { level: "error", service: "plugin-host", message: `unhandled rejection: ${errorText(err)}` });
});

notify("ready", { runtime: `bun ${Bun.version}` });
for await (const line of console) {
  if (!line.trim()) continue;
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    continue;
  }
  // Each request runs on its own: a callback that awaits forever holds up nothing else.
  answer(message);
}
process.exit(0);
