# The interactive session's cards, composer, pickers and pop-ups (host-cli/src/tui/).
# Every message here must also be in zh-CN/tui.ftl, with the same arguments.

## A tool call's card (card.rs)
card-running = running…
card-cancelled = cancelled
card-denied = denied
card-denied-reason = denied: { $reason }
card-exit-code = exit code { $code }
card-killed = killed: { $reason }
card-no-output = (no output)
# After the first line of output: how many more lines, and how the command ended.
card-extra-lines = {" "}(+{ $count } { $count ->
        [one] line
       *[other] lines
    })
card-extra-lines-end = {" "}(+{ $count } { $count ->
        [one] line
       *[other] lines
    }, { $end })
card-end = {" "}({ $end })
card-more-lines = … { $count } more { $count ->
        [one] line
       *[other] lines
    } (Ctrl+T for the whole transcript)
card-more-arguments = … { $count } more { $count ->
        [one] argument
       *[other] arguments
    } (Ctrl+T for the whole transcript)
card-and-more-files = {" "}and { $count } more { $count ->
        [one] file
       *[other] files
    }

## The composer (composer/)
# A large paste, folded into one atom of the input.
composer-paste-lines = [Pasted text #{ $number } +{ $lines } lines]
composer-paste-chars = [Pasted text #{ $number } +{ $chars } chars]
composer-history-error = prompt history { $path }: { $error }

## The session picker (picker.rs)
picker-title = Resume a session
picker-keys = type to filter · ↑/↓ · Enter · Esc
picker-search = {"search: "}
picker-no-match = no session matches
# After a right-aligned count: "  12 msgs".
picker-messages = msgs
picker-ago-seconds = { $n }s ago
picker-ago-minutes = { $n }m ago
picker-ago-hours = { $n }h ago
picker-ago-days = { $n }d ago

## The turn picker of /rewind and Esc Esc (turn_picker.rs)
rewind-picker-title = Rewind to the start of a turn
rewind-picker-keys = ↑/↓ · Enter files+conversation · c files · v conversation · u undo last · Esc
rewind-picker-ran-shell = {"  "}(ran shell commands: not undone)

## /rewind, /fork, /tree (rewind.rs)
rewind-nothing = nothing to rewind yet
rewind-busy = a turn is running: rewind when it has finished (Esc cancels it)
rewind-usage = usage: /rewind N [code|conversation|both] | /rewind undo
rewind-fork-busy = a turn is running: fork when it has finished
rewind-fork-usage = usage: /fork [N]
rewind-tree-error = cannot list sessions: { $error }
rewind-tree-empty = no saved sessions in this workspace
rewind-tree-before-turn = {" "}(before turn { $turn })
rewind-restored = restored: { $files }
rewind-deleted = deleted: { $files }
rewind-nothing-restored = no file needed restoring
rewind-not-restored = not restored: { $file }
# $turns: one turn number or several, comma-separated.
rewind-shell-turns = turn { $turns } ran shell commands: what they changed is not tracked and was not undone
rewind-conversation = conversation: { $count } messages (/rewind undo takes this back)

## /goal (goal.rs)
goal-none = no goal: /goal <objective> [--check <command>]… starts one (the checks run after every turn; with none, the task list decides)
goal-not-pursued = no goal is being pursued
goal-already = a goal is already being pursued: /goal clear ends it first
goal-needs-objective = /goal needs an objective before --check
goal-check-needs-command = /goal: --check needs a command
# `/goal status`: a label, padded to ten columns, then its value.
goal-label-goal = goal
goal-label-judged = judged by
goal-label-check = check
goal-label-turns = turns
goal-label-state = state
goal-label-last = last
goal-checklist = task list
goal-turns = { $turns } of { $allowed } · { $tokens } tokens
goal-state-checking = checking
goal-state-paused = paused: { $why }
goal-state-working = working
# The status line's piece.
goal-piece = goal { $turns }/{ $allowed }
goal-piece-paused = goal paused
goal-set = goal set: working on it until it is met (/goal pause, /goal status)
goal-paused-by-command = by /goal pause
goal-paused = goal paused: the turn in progress finishes; /goal resume goes on
goal-resumed = goal resumed
goal-cleared = goal cleared
goal-turn-cancelled = the turn was cancelled
goal-turn-failed = the turn failed ({ $result })
goal-paused-why = goal paused: { $why }; /goal resume goes on
goal-tool-missing = the `{ $tool }` tool is not loaded
goal-paused-tool-missing = goal paused: its checks need the `{ $tool }` tool, which is not loaded
goal-checks-not-started = its checks could not start
goal-paused-checks-failed = goal paused: cannot run its checks: { $error }
goal-check-line = goal check { $receipt }
goal-met = goal met after { $turns } { $turns ->
        [one] turn
       *[other] turns
    }
goal-budget-spent = its turn budget is spent
goal-not-met = goal not met after { $turns } turns: the turn budget is spent; /goal resume gives it { $more } more, /goal clear ends it

## Running sub-agents' cards (children.rs)
# Shown first on the selected card.
children-keys = Esc stops it · Enter shows its work
# $last: " · " and the tool call running or last run, or nothing.
children-card = sub-agent { $label } · { $calls } { $calls ->
        [one] call
       *[other] calls
    }, { $secs }s{ $last } ({ $model })
# What Enter writes of a child's tool calls.
children-tool-failed = ← { $name } failed: { $output }
children-tool-ok = ← { $name } ok

## MCP servers: notices, /mcp, the approval question, `@server:` completion (mcp/)
mcp-ready = MCP server `{ $name }` ready: { $tools } { $tools ->
        [one] tool
       *[other] tools
    }
mcp-failed = MCP server `{ $name }` failed: { $reason }
mcp-prompt-description = MCP prompt of { $server }
mcp-empty-prompt = /{ $command }: the server returned an empty prompt
mcp-reconnect-usage = /mcp reconnect <name>: one of { $names }
mcp-none-waiting = no MCP server is waiting for approval
mcp-unknown-subcommand = /mcp { $word }: unknown; use /mcp, /mcp reconnect <name> or /mcp approve
mcp-no-server-configured = (no MCP server is configured)
mcp-no-such-server = /mcp reconnect: no MCP server named `{ $name }`; configured: { $names }
mcp-server-disabled = MCP server `{ $name }` is disabled in its configuration
mcp-server-state = MCP server `{ $name }`: { $state }
mcp-reconnecting = MCP server `{ $name }`: reconnecting…
mcp-unknown-prompt = unknown command /{ $command }: no ready MCP server offers this prompt (see /mcp)
mcp-prompt-thread-failed = cannot ask the MCP server for the prompt: { $error }
mcp-left-stopped = MCP servers left stopped: { $names } (/mcp approve to start them)
mcp-approved-session-only = approved for this session only: { $error }
mcp-none-waiting-any-more = no MCP server was waiting any more
mcp-starting = starting MCP servers: { $names }
mcp-no-project-file = the project has no .mcp.json to remember
mcp-approved-later = approved { $file } for later sessions (`reasonix mcp untrust` withdraws it)
# Where a server is configured.
mcp-origin-local = local (user mcp.json, this workspace)
mcp-origin-project-toml = project reasonix.toml
mcp-origin-project-mcp-json = project .mcp.json
mcp-origin-user-toml = user config.toml
mcp-origin-user-mcp-json = user mcp.json
mcp-origin-package = installed package
# A server's state, in a few words.
mcp-state-disabled = disabled
mcp-state-untrusted = not started: the workspace is not trusted (`reasonix trust`)
mcp-state-not-approved = not approved (/mcp approve)
mcp-state-starting = starting…
mcp-state-ready = ready · { $tools } { $tools ->
        [one] tool
       *[other] tools
    } · { $prompts } { $prompts ->
        [one] prompt
       *[other] prompts
    } · { $resources } { $resources ->
        [one] resource
       *[other] resources
    }
mcp-state-failed = failed: { $reason }
mcp-none-configured = no MCP servers configured (add one with `reasonix mcp add`, or in .mcp.json)
mcp-heading = MCP servers: { $ready } of { $total } ready
mcp-restarted = {" "}· restarted { $count } { $count ->
        [one] time
       *[other] times
    }
mcp-from = from { $file } ({ $origin })
mcp-reconnect-hint = /mcp reconnect <name> starts a server again
mcp-question-title = Start { $count } MCP { $count ->
        [one] server
       *[other] servers
    } from this project?
mcp-question-warning = they run as programs with your permissions
mcp-question-session = y  Yes, for this session
mcp-question-always = a  Always for this .mcp.json, as it is now (asked again when it changes)
mcp-question-no = n  No, leave them stopped (/mcp approve asks again)
mcp-question-confirm-always = press a again (or Enter) to always start them; any other key goes back
# After `server:` in the `@` completion list.
mcp-resource-count = ({ $count } MCP { $count ->
        [one] resource
       *[other] resources
    })

## Diffs of a proposed or made change (diff.rs)
diff-more = … { $more } more diff { $more ->
        [one] line
       *[other] lines
    }
diff-created = created
diff-modified = modified
diff-deleted = deleted
diff-binary = binary: { $old } → { $new } bytes
diff-too-large = too large to show: { $old } → { $new } lines

## /mode (mode.rs)
mode-current = mode: { $mode } ({ $names }); /mode <name> switches
mode-set = mode: { $mode }
mode-effort-kept = effort stays { $effort } (chosen with /effort or --effort)
mode-effort = effort { $effort }
mode-effort-unchanged = effort unchanged ({ $error })
mode-steps-fresh = task-list steps need a passing check after the last change
mode-steps-goal = task-list steps verified in goal mode
mode-subagents = sub-agents { $depth } deep, { $concurrency } at once, { $writers } writing

## The permission summary (mod.rs)
policy-no-rules = no rules: readers run, writers and commands ask
