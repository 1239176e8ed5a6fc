# `reasonix --help` in English: generated from the commands' doc comments (host-cli/src/cli_text.rs).
# Do not edit by hand: change the doc comment, then run
#   REASONIX_BLESS=1 cargo test -p reasonix cli_text
# and translate what changed in ../zh-CN/cli.ftl.

cli =
    A coding agent for the terminal where every capability is a sandboxed WebAssembly plugin
    .after =
        As in Claude Code, `reasonix -p "task" [flags]` is `reasonix run -p "task" [flags]`.
    .arg-trust-workspace =
        Trust this workspace's reasonix.toml for this run: settings that widen what plugins, commands or credentials reach take effect (see `reasonix trust`)
    .arg-trust-mcp =
        Let the project's `.mcp.json` servers start for this run (see `reasonix mcp trust`)
    .arg-model =
        Model reference: a provider name, `provider/model`, or a bare model name
    .arg-effort =
        Reasoning effort (e.g. low, high, max)
    .arg-mode =
        Run mode: economy, balanced or delivery (over `[agent] mode`; `/mode` switches)
    .arg-dir =
        Workspace root (default: `[sandbox] workspace_root`, else the current directory)
    .arg-add-dir =
        An extra writable directory, like `[sandbox] allow_write`. Repeatable
    .arg-continue-latest =
        Continue the latest session of this workspace
    .arg-resume =
        Resume a session: its id, an id prefix, or text from its title; without a value, pick one from a list
    .arg-permission-mode =
        ask (default), acceptEdits, auto, dontAsk or bypassPermissions
    .arg-yolo =
        Start in yolo: everything runs except what `[permissions] deny` blocks
    .arg-allowed-tools =
        Allow rules for this session, comma- or space-separated (e.g. `Edit,Bash(cargo test:*)`)
    .arg-max-steps =
        Model requests per turn at most (default: `[agent] max_steps`, else 100)
    .arg-agent-composition =
        Run as the agent composition NAME (`[compositions.NAME]`); `-c` keeps a session's own

cli-version =
    Print the version, the WIT contract version and the engine

cli-plugin =
    Inspect plugins

cli-plugin-list =
    Every plugin: name, version, source, roles, what it serves, capabilities requested and granted
    .arg-json =
        Machine-readable output

cli-plugin-install =
    Install a component from a .wasm file or a directory (a cargo crate is built first), after showing what it asks for and getting the grant
    .arg-source =
        A component (.wasm), a directory holding one, or a cargo crate to build for wasm32-wasip2
    .arg-sha256 =
        Expected sha256 of the component (hex); refused on a mismatch
    .arg-yes =
        Grant everything the plugin requests, without asking
    .arg-grants =
        Grant one capability (repeatable): workspace=read|read-write, network=PATTERN, env=NAME, process, memory_mib=MiB, call_timeout_ms=MS (limits above the defaults of 256 MiB and 60000 ms need a grant). Only what the plugin also requests is granted
    .arg-name =
        Refuse the component unless it calls itself NAME
    .arg-reference =
        For a git source: the commit (or branch or tag, recorded as its commit) to install
    .arg-subdir =
        A folder inside the source that holds the package

cli-plugin-update =
    Reinstall a plugin from its recorded source (or a new one); asks again only when it requests more than it was granted
    .arg-name =
        The installed plugin
    .arg-source =
        Where to take the new version from (default: the source it was installed from)
    .arg-sha256 =
        Expected sha256 of the component (hex); refused on a mismatch
    .arg-yes =
        Grant everything the plugin requests, without asking
    .arg-grants =
        Grant one capability (repeatable): workspace=read|read-write, network=PATTERN, env=NAME, process, memory_mib=MiB, call_timeout_ms=MS (limits above the defaults of 256 MiB and 60000 ms need a grant). Only what the plugin also requests is granted
    .arg-reference =
        For a package from git: the commit (or branch or tag) to update to (default: the newest)

cli-plugin-info =
    Everything about one plugin: description, tools, kinds, capabilities, limits, index entry
    .arg-json =
        Machine-readable output

cli-plugin-show =
    Everything about one installed package: where it came from, what it brings and runs
    .arg-json =
        Machine-readable output

cli-plugin-doctor =
    Check one installed package: its files against their hashes, and that it still reads

cli-plugin-marketplace =
    Marketplaces (Claude Code's `.claude-plugin/marketplace.json`) to install packages from as `entry@marketplace`

cli-plugin-marketplace-add =
    Add a marketplace: a git repository (https, ssh, file://) or a folder holding `.claude-plugin/marketplace.json`. A copy at its current commit is kept

cli-plugin-marketplace-list =
    The known marketplaces and their entries

cli-plugin-marketplace-remove =
    Forget a marketplace (installed packages stay)

cli-plugin-marketplace-update =
    Fetch a marketplace again (its newest commit)

cli-plugin-remove =
    Remove an installed plugin: its file, index entry and compiled artifacts

cli-plugin-enable =
    Enable an installed plugin

cli-plugin-disable =
    Disable an installed plugin (it is kept but not loaded)

cli-plugin-new =
    Scaffold a plugin crate (Rust, reasonix-sdk) that builds with `cargo build --release --target wasm32-wasip2`
    .arg-name =
        Plugin (and crate) name: lowercase letters, digits, `-`, `_`, starting with a letter
    .arg-kind =
        What the plugin serves
    .arg-dir =
        Directory to create (default: ./<name>); must be missing or empty
    .arg-sdk-path =
        The reasonix-sdk crate to depend on (default: the sdk/ of the tree this binary was built from)

cli-plugin-wit =
    Write the plugin contract (the WIT package) for components in other languages
    .arg-out =
        Directory to write the .wit files to (default: ./wit)

cli-tools =
    Inspect and invoke tools

cli-tools-list =
    Every tool: name, read-only flag and canonical JSON schema
    .arg-json =
        Machine-readable output

cli-tools-doc =
    Print the tool contract as Markdown (what `docs/TOOL_CONTRACT.md` holds)

cli-tools-call =
    Invoke one tool, as a plugin developer would to test it. The result goes to stdout (exit 0); a tool error goes to stderr (exit 1)
    .arg-name =
        Tool name
    .arg-arguments =
        Arguments as a JSON object
    .arg-dir =
        Workspace root (default: `[sandbox] workspace_root`, else the current directory)

cli-providers =
    The configured LLM providers

cli-providers-list =
    Every configured provider: kind and the plugin serving it, endpoint, models, where the API key comes from (never the key). Exit 1 when a provider's kind is not served
    .arg-json =
        Machine-readable output

cli-providers-presets =
    The built-in presets a `[[providers]]` entry can start from (`preset = "<id>"`)
    .arg-json =
        Machine-readable output

cli-providers-try =
    Send one prompt and stream the answer: text to stdout, reasoning, retries and usage to stderr
    .arg-model =
        Model reference: a provider name, `provider/model`, or a bare model name (default: `default_model`)
    .arg-effort =
        Reasoning effort (e.g. low, high, max; default: the provider's)
    .arg-prompt =
        The prompt

cli-doctor =
    Check the installation and configuration; exit 1 when something would not work
    .arg-json =
        Machine-readable output

cli-run =
    Run one task headless, to the end: the answer streams to stdout, tool activity to stderr. Exit 0 on success, 1 when the run fails, 2 on a usage or configuration error, 3 when the final answer was cut off, 4 when `--timeout` was reached
    .arg-task =
        The task. Without it, the task is read from stdin (when stdin is not a terminal)
    .arg-model =
        Model reference: a provider name, `provider/model`, or a bare model name (default: the session's model when resuming, else `default_model`)
    .arg-fallback-model =
        A model to switch to, once, when a request to the main one fails for good before its answer starts (same forms as `--model`)
    .arg-max-steps =
        Model requests at most (default: `[agent] max_steps`, else 100)
    .arg-dir =
        Workspace root (default: `[sandbox] workspace_root`, else the current directory)
    .arg-effort =
        Reasoning effort (e.g. low, high, max; default: the provider's)
    .arg-permission-mode =
        ask (default), acceptEdits, auto, dontAsk or bypassPermissions. `plan` needs an interactive session
    .arg-auto =
        Let file writers and shell commands run unless an `ask` rule matches (= `--permission-mode auto`)
    .arg-yolo =
        Run everything except what `[permissions] deny` blocks (= `--permission-mode bypassPermissions`)
    .arg-allowed-tools =
        Allow rules for this run, comma- or space-separated (e.g. `Edit,Bash(cargo test:*)`). Takes the following arguments while they are rules naming a known tool; the rest is the task (`--` ends the list). Repeatable
    .arg-disallowed-tools =
        Deny rules for this run, added to `[permissions] deny`; same forms as `--allowed-tools`
    .arg-system-prompt =
        Replace the Reasonix guidance part of the system prompt (like `[agent] system_prompt`)
    .arg-system-prompt-file =
        `--system-prompt` read from a file
    .arg-append-system-prompt =
        Text added at the end of the system prompt
    .arg-append-system-prompt-file =
        `--append-system-prompt` read from a file
    .arg-add-dir =
        An extra writable directory for this run, like `[sandbox] allow_write`. Repeatable
    .arg-verbose =
        Text output: show the model's reasoning on stderr (= `--show-thinking`). Accepted in every format, as Claude Code's `-p --output-format stream-json --verbose`
    .arg-output-format =
        text (default), json (one result object) or stream-json (one JSON event per line)
    .arg-print =
        Text output: print only the final answer
    .arg-show-thinking =
        Text output: show the model's reasoning on stderr
    .arg-timeout =
        End the whole run after this long (`90s`, `5m`, `1h` or plain seconds; default: `[agent] run_timeout`, else none): exit 4, saying what it was waiting for
    .arg-json-schema =
        Structured output: the final answer must be one JSON value that validates against this JSON Schema (given inline, or the path of a file holding it); the value is the result's `structured_output`
    .arg-mode =
        Run mode: `economy` (low effort, fewer sub-agents), `balanced` (the configuration as written) or `delivery` (high effort, every task-list step verified); over `[agent] mode`
    .arg-max-budget-usd =
        Make no further model request once the session has spent this many US dollars (`error_max_budget_usd`, exit 1). The model must be priced in dollars
    .arg-goal =
        Goal mode: the task is an objective worked on across turns until every `--goal-check` command exits 0 (with none: every task-list item is completed with evidence), or a budget is spent (exit 1, saying which)
    .arg-goal-check =
        An acceptance check of `--goal`: a shell command the host runs in the sandbox after every turn; the goal is met when each exits 0. Repeatable
    .arg-goal-max-turns =
        `--goal`: turns at most (default 10)
    .arg-goal-max-tokens =
        `--goal`: input plus output tokens at most, over every turn
    .arg-input-format =
        `text` (the task from the arguments or stdin) or `stream-json`: user messages as JSON lines on stdin, one turn each, until end of input (needs `--output-format stream-json`)
    .arg-include-partial-messages =
        stream-json output: `stream_event` lines with the answer's text and thinking as they stream
    .arg-session-id =
        The id (a UUID) of the new session; with `--fork-session`, of the fork
    .arg-fork-session =
        With `--resume`/`--continue`: go on in a new session (a copy of the old one, which is left untouched)
    .arg-no-session-persistence =
        Write nothing to the session store (a resumed session is only read)
    .arg-name =
        The session's title (`sessions list`, `--resume TEXT`)
    .arg-tools =
        The built-in tools offered to the model, comma- or space-separated, in Claude Code's names (`Bash,Read,Edit`) or ours; `""` for none, `default` for all. MCP tools are still offered. Takes the following arguments while they are tool names
    .arg-mcp-config =
        MCP servers for this run, in Claude Code's `{"{"}"mcpServers": {"{"}…{"}"}{"}"}` shape: a file or the JSON itself. Takes the following arguments while they are such; repeatable. They win over configured servers of the same name
    .arg-strict-mcp-config =
        Only the `--mcp-config` servers: none from the configuration files
    .arg-setting-sources =
        The `settings.json` files read, comma-separated: `user` (`~/.claude/settings.json`, `<home>/settings.json`), `project` (`.claude/settings.json`, `.reasonix/settings.json`), `local` (`.claude/settings.local.json`). Default: all
    .arg-settings =
        One more settings document (a file, or the JSON itself), read after the files; the user's own, like `<home>/settings.json`
    .arg-continue-latest =
        Continue the latest session of this workspace
    .arg-resume =
        Continue a session: its id, an id prefix, or text from its title
    .arg-agent-composition =
        Run as the agent composition NAME (`[compositions.NAME]`: persona, tools, skills, MCP servers, packages, tighter rules). A continued session keeps the one it started with

cli-sessions =
    Saved sessions (transcripts) of a workspace

cli-sessions-list =
    The sessions of the workspace, most recently updated first
    .arg-json =
        Machine-readable output
    .arg-dir =
        Workspace root (default: `[sandbox] workspace_root`, else the current directory)

cli-sessions-show =
    Print a session's conversation (id, id prefix or title text)

cli-sessions-export =
    Write a session's conversation as Markdown or JSON lines, or its transcript (to move it to another machine: `sessions import --from FILE` there)
    .arg-output =
        Write to this file (atomically) instead of stdout

cli-sessions-rename =
    Give a session a title (`sessions list` and `--resume` use it)

cli-sessions-delete =
    Delete a session with its checkpoints and archive (refused while it is open)

cli-sessions-fork =
    A new session sharing the history up to the start of a turn (all of it without --turn)

cli-sessions-import =
    Add transcripts to this workspace's sessions: exported with `--format transcript` (from another machine), or the original Reasonix's (Go), converted: those of `--from`, else every one found under the state directory (`sessions-v4`)
    .arg-from =
        A transcript (`<id>.jsonl`) or a directory of them; repeatable

cli-sessions-tree =
    The sessions with their fork relations

cli-sessions-rewind =
    Put the files and/or the conversation back to the start of a turn, or undo the last rewind. What shell commands changed is not tracked
    .arg-code =
        Only the files
    .arg-conversation =
        Only the conversation
    .arg-both =
        Files and conversation (the default)
    .arg-undo =
        Undo the last rewind

cli-trust =
    Trust a workspace: its reasonix.toml may then widen what plugins, commands and credentials reach (sandbox roots, network, permissions, providers). Without arguments, trusts the current directory
    .arg-dir =
        The workspace to trust (default: the current directory), with the reasonix.toml and project settings.json files (whose hooks then run) it holds now: when one changes, what it configures is untrusted again until you review it and trust it again
    .arg-remove =
        Stop trusting the directory instead
    .arg-list =
        Print the trusted directories

cli-hooks =
    Hooks from settings.json files (Claude Code compatible)

cli-hooks-list =
    Every configured hook: event, point, matcher, command, the file it comes from, and whether it runs (trusted, fires in this build)
    .arg-json =
        Machine-readable output

cli-setup =
    Choose a provider, save its API key and test it (interactive; needs a terminal)

cli-mcp =
    MCP servers: add, remove, list, get, import; approve a project's .mcp.json

cli-mcp-add =
    Add a server: `add <name> [-e KEY=VALUE]... -- <command> [args...]` (stdio), or `add --transport http|sse <name> <url> [-H "Name: value"]...`
    .arg-transport =
        How to reach the server
    .arg-scope =
        Where to add it: `local` (yours, this workspace only; the default, as in Claude Code), `user` (yours, every workspace) or `project` (the workspace's .mcp.json)
    .arg-env =
        An environment variable of the server process (stdio), repeatable. `${"{"}VAR{"}"}` in the value is expanded when the server starts
    .arg-headers =
        A header sent with every request (http, sse), repeatable, e.g. `-H "Authorization: Bearer ${"{"}API_TOKEN{"}"}"`
    .arg-force =
        Replace a server of the same name in that file
    .arg-name =
        Server name: letters, digits, `-` and `_` (tools become `mcp__<name>__<tool>`)
    .arg-target =
        stdio: the command and its arguments, after `--` (so that their options are not read as ours); http and sse: the URL

cli-mcp-add-json =
    Add a server from its JSON entry, as Claude Code writes it: `add-json <name> '<json>'` (e.g. '{"{"}"type":"http","url":"https://…"{"}"}' or '{"{"}"command":"npx","args":[…]{"}"}')
    .arg-scope =
        Where to add it: `local` (yours, this workspace only; the default, as in Claude Code), `user` (yours, every workspace) or `project` (the workspace's .mcp.json)
    .arg-force =
        Replace a server of the same name in that scope
    .arg-name =
        Server name: letters, digits, `-` and `_` (tools become `mcp__<name>__<tool>`)
    .arg-json =
        The entry: a JSON object with `command` (and `args`, `env`, `cwd`) or `type` and `url` (and `headers`), as in a `.mcp.json`

cli-mcp-remove =
    Remove a server from the mcp.json file that defines it
    .arg-scope =
        The scope to remove it from (needed only when several define it)

cli-mcp-list =
    Every configured server: source file, transport, enabled, approval of project files, and its status (each enabled server is started to count its tools)
    .arg-json =
        Machine-readable output

cli-mcp-get =
    One server in full: command and arguments or URL, environment variable and header names (never their values), timeouts, the file it comes from, status and tools
    .arg-json =
        Machine-readable output

cli-mcp-import =
    Copy servers from Claude Code's configuration (~/.claude.json: its own servers and this project's) or from another .mcp.json file
    .arg-from =
        The file to import from: a .mcp.json, or Claude Code's user config (default: ~/.claude.json, whose own servers and this project's are imported)
    .arg-scope =
        Where the file's top-level `mcpServers` go (Claude Code's user servers: `user` by default). The servers Claude Code keeps for this project (`projects.<dir>`, its `local` scope) always become this workspace's local servers, never user-wide or project ones
    .arg-force =
        Replace servers of the same name instead of skipping them

cli-mcp-trust =
    Approve this workspace's .mcp.json as it is now: its servers may start. A changed file needs approving again

cli-mcp-untrust =
    Withdraw the approval of this workspace's .mcp.json

cli-acp =
    Serve the Agent Client Protocol on stdin/stdout, for editors that start an agent (Zed, JetBrains, Neovim plugins): sessions, streamed updates, tool calls with diffs, approvals in the editor. docs/ACP.md

cli-serve =
    Serve the session protocol over HTTP and server-sent events (loopback by default; every API request needs the token). docs/SERVE.md
    .arg-listen =
        Where to listen (`ADDR:PORT`; port 0 picks a free one). Beyond loopback only with a token you chose
    .arg-token =
        The bearer token clients send (default: `REASONIX_SERVE_TOKEN`, else the one in `<home>/serve-token`, made on first use, readable only by you)
    .arg-dir =
        The folder a session opens in when a client names none (default: the current one)
    .arg-allowed-hosts =
        Another name the server answers to (the host of a reverse proxy); repeatable

cli-skills =
    Skills (SKILL.md folders) this workspace sees: list them, show one

cli-skills-list =
    Every skill: name, where it comes from, how it is invoked, its description; then the files that were skipped and why
    .arg-json =
        Machine-readable output

cli-skills-show =
    One skill: its folder, frontmatter settings, files and instructions
    .arg-json =
        Machine-readable output
