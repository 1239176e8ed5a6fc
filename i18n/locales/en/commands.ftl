# What the interactive session's slash commands print (host-cli/src/tui/actions.rs, app.rs).

## /help
cmd-help-keys = keys: Enter send · Shift+Enter/Ctrl+J newline · ↑/↓ history · @ files · !cmd shell · Esc cancel · Esc Esc rewind · Shift+Tab ask→acceptEdits→auto→plan · ↓ select a sub-agent (Esc stops it) · Ctrl+Y yolo · Ctrl+O reasoning · Ctrl+E last tool call · Ctrl+T tool calls · Ctrl+C twice / Ctrl+D quit

## Lists joined in a sentence
cmd-list-separator = {", "}

## /memory, /remember, /forget, `# fact`
cmd-memory-title = Memory ({ $count } facts)
cmd-memory-scope-project = project
cmd-memory-scope-user = user
cmd-memory-empty = nothing saved yet: /remember <fact>, or `# fact`; the model saves with `remember`
cmd-memory-hint = /forget <id> archives one; the model searches them with `memory`
cmd-remember-needs-fact = /remember needs the fact to save
cmd-remember-saved = saved as { $id }; recalled when a message matches it (/memory lists, /forget { $id } archives)
cmd-remember-known = already saved as { $id }
cmd-forget-needs-id = /forget needs a fact's id (see /memory)
cmd-forget-done = forgot { $id } ({ $text }); its file is kept in the archive
cmd-forget-unknown = no saved fact `{ $id }` (see /memory)

## /sessions, /resume
cmd-sessions-none = no saved sessions in this workspace
cmd-sessions-row = {"  "}{ $id }  { $count } msgs  { $model }  { $title }
cmd-sessions-hint = /resume <id> opens one
cmd-sessions-failed = cannot list sessions: { $error }

## /effort
cmd-effort-default = the provider's default
cmd-effort-current = effort: { $effort } (set with /effort <level>, `auto` for the default)
cmd-effort-set = effort: { $effort } from the next request

## /status: labels are padded to one column by display width
cmd-status-session = session
cmd-status-model = model
cmd-status-posture = posture
cmd-status-mode = mode
cmd-status-workspace = workspace
cmd-status-context = context
cmd-status-tokens = tokens
cmd-status-cache = cache
cmd-status-cost = cost
cmd-status-context-value = { $used } of { $window }
cmd-status-context-assumed = { $window } (assumed: the model's window is not known; set `context_window`)
cmd-status-tokens-value = { $input } in, { $output } out
cmd-status-cache-value = { $percent }% of prompt tokens from the provider's cache
cmd-status-cache-none = not reported

## /cost (and the end of /status)
cmd-cost-session = this session: { $cost }
cmd-cost-no-prices = no prices configured for this model ([[providers]] price)
cmd-cost-model = {"  "}{ $model }: { $requests } requests, { $input } in ({ $cached } from cache), { $output } out, { $cost }
cmd-cost-partly-unpriced = { $cost } ({ $count } requests unpriced)
cmd-cost-unpriced = unpriced

## /permissions
cmd-permissions-posture = posture: { $posture }
cmd-permissions-session-grant = {"  "}session { $number } { $rule }
cmd-permissions-revoke-hint = {"  "}/permissions revoke <N> takes a session grant back
cmd-permissions-revoked = revoked for this session: { $rule } (such calls ask again)
cmd-permissions-nothing-to-revoke = no session grant to revoke (rules in config files are edited there)
cmd-permissions-revoke-usage = /permissions revoke <N|rule>: one of { $grants }

## /plugins
cmd-plugins-tools = tools: { $tools }
cmd-plugins-interceptor = interceptor

## /agents
cmd-agents-built-in = built-in
cmd-agents-from = {"  "}({ $from })
cmd-agents-skipped = {"  "}skipped: { $problem }
cmd-agents-hint = the model picks one with `task` (profile); ↓ selects a running sub-agent, Esc stops it

## /skills
cmd-skills-title = Skills ({ $count })
cmd-skills-by-model = model
cmd-skills-untrusted = untrusted workspace
cmd-skills-how = {"  "}({ $scope }; { $how })
cmd-skills-skipped = {"  "}skipped: { $warning }
cmd-skills-none = no skills: a folder with a SKILL.md in .claude/skills, .reasonix/skills or ~/.claude/skills (docs/SKILLS.md)
cmd-skills-scope-user = user
cmd-skills-scope-user-claude = user, ~/.claude
cmd-skills-scope-user-agents = user, ~/.agents
cmd-skills-scope-custom = [skills] paths
cmd-skills-scope-project = project
cmd-skills-scope-project-claude = project, .claude
cmd-skills-scope-project-agents = project, .agents
cmd-skills-scope-package = package

## /agent
cmd-agent-already = this session runs as the composition { $name } already
cmd-agent-turn-running = a turn is running: wait for it or stop it (Esc) before switching
cmd-agent-title = Agent composition: { $name }
cmd-agent-title-none = Agent composition: none (the configuration as it is)
cmd-agent-hint = a session keeps its composition; `/agent NAME` leaves this one (saved) and starts a new session as NAME

## /model, /compact, unknown commands
cmd-model-title = model: { $model } (switch with /model <provider/model>)
cmd-compact-started = compacting the history…
cmd-unknown = unknown command /{ $name } (try /help)

## `!cmd`
cmd-bang-no-shell = `!` needs the shell tool, which is not loaded
cmd-bang-failed = cannot start the command: { $error }

## What the session shows as it goes (host-cli/src/tui/app.rs, transcript.rs)
app-no-preview = no preview of this change: { $reason }
app-no-tool-call = no tool call to show yet
app-child-stopping = stopping sub-agent { $label }
app-child-finished-already = sub-agent { $label } has already finished
app-child-so-far = sub-agent { $label } so far:
app-child-nothing-yet = {"  "}(nothing yet)
app-yolo = yolo: every call runs without asking, except what deny rules block (Ctrl+Y to leave)
app-queued = queued; sent when this turn ends ({ $waiting } waiting)
app-cancelled = cancelled
app-max-steps = stopped after { $steps } model requests (--max-steps); say "continue" to go on
app-new-session = new session { $id }
app-resumed-session = resumed session { $id } ({ $count } messages)
app-model-changed = model: { $model }
app-retrying = retrying in { $delay }s ({ $attempt }/{ $max }): { $reason }
app-subagent-started = ⇢ sub-agent { $label } ({ $model })
app-subagent-finished = ⇠ sub-agent { $label }: { $status } ({ $steps } { $steps ->
        [one] request
       *[other] requests
    })
app-child-tool-failed = {"  "}↳ [{ $label }] { $name } failed: { $first }
app-reasoning-folded-from-now = reasoning folded from now on (Ctrl+O shows it)
app-reasoning-shown-from-now = reasoning shown in full from now on (Ctrl+O folds it)
app-reasoning-latest = {"  "}∴ reasoning of the latest turn
app-reasoning-folded = {"  "}∴ { $first } ({ $count } lines of reasoning, Ctrl+O shows them)
app-history-earlier = … { $count } earlier messages (reasonix sessions list)
cmd-remember-file = added to { $file } (read into every session of this project)
