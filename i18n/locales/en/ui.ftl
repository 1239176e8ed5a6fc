# Reasonix's user interface, English (the reference catalogue). Every message here must also be
# in zh-CN.ftl, with the same attributes and arguments: `cargo test -p reasonix-i18n` checks it.
# docs/I18N.md says how to add a string.

language-name = English
test-greeting = Hello, { $name }!

## `--help`: clap's own words (the commands' texts are in cli.ftl)
cli-heading-usage = Usage:
cli-heading-options = Options
cli-heading-arguments = Arguments
cli-heading-commands = Commands
cli-flag-help = Print help
cli-flag-version = Print version

## The status line
status-context = ctx { $used }/{ $window }
status-context-used = ctx { $used }
status-cache = cache { $percent }%
posture-ask = ask
posture-accept-edits = accept-edits
posture-auto = auto
posture-dont-ask = dont-ask
posture-yolo = YOLO
posture-plan = plan
mode-economy = economy
mode-balanced = balanced
mode-delivery = delivery

## An approval
approval-subagent-before = {"Sub-agent "}
approval-subagent-after = {" asks:"}
approval-allow-before = {"Allow "}
approval-allow-after = {"?  "}
approval-once = y  Yes, once
approval-session = a  Yes, for this session: { $scope }
approval-always = p  Always allow { $scope } (adds it to [permissions] allow in { $file })
approval-deny = n  No, and tell the model why (type a note, Enter)
approval-confirm-always = {"  "}press p again to add { $scope } to { $file } for good; any other key goes back
approval-typeahead = {"  "}typed before this question: kept in the composer; answers count after a pause
approval-note = {"  note to the model: "}
approval-plan-title = Approve this plan?  nothing has changed yet
approval-plan-more = {"  "}… { $more } more rows of the plan
approval-plan-ask = y  Yes, carry it out, asking before changes
approval-plan-auto = a  Yes, carry it out in auto mode
approval-plan-keep = n  No, keep planning (type a note for the model, Enter)
approval-arguments-more = {"  "}… { $more } more rows of arguments

## First-run setup
setup-title = Reasonix setup
setup-step-pick = 1/3 choose a provider
setup-step-custom = 1/3 custom endpoint
setup-step-key = 2/3 API key
setup-step-test = 3/3 test
setup-step-done = done
setup-step-write-failed = could not save
setup-keys-pick = ↑/↓ choose · Enter select · Esc quit
setup-keys-field = type or paste · Enter next · Ctrl-U clear · Esc back
setup-keys-key = paste or type · Enter test · Ctrl-U clear · Esc back
setup-keys-testing = Esc stop
setup-keys-passed = Enter save · r test again · e edit · Esc back
setup-keys-failed = r retry · e edit · s save anyway · Esc back
setup-keys-done = Enter continue
setup-keys-write-failed = r try again · Esc quit
setup-base-url-prompt = Base URL of the OpenAI-compatible API (…/v1):
setup-base-url = base URL: { $url }
setup-model-prompt = Model id:
setup-key-prompt-custom = API key (saved as { $env }; leave empty if the endpoint needs none):
setup-key-prompt = Paste your API key (saved as { $env }):
setup-testing = Testing with one short request…
setup-test-passed = ✓ The provider answered.
setup-enter-saves = Enter saves the settings.
setup-test-failed = ✗ The test failed:
setup-failed-choices = r tries again, e edits, s saves it untested.
setup-done = ✓ Setup is complete.
setup-done-config = config:
setup-done-key = key { $env }:
setup-done-model = default model: { $model }
setup-done-again = Run `reasonix setup` again to change this.
setup-write-failed = ✗ Could not save:
setup-pick-question = Which LLM provider should Reasonix use?
setup-custom = custom
setup-found-environment = the environment
setup-found-key = found { $env } in { $place }; it will be used
setup-key-found = key found
setup-provider = {"Provider: "}
setup-preset-custom = Custom OpenAI-compatible endpoint (asks base URL and model)
setup-preset-deepseek = DeepSeek official API (OpenAI-compatible chat completions)
setup-preset-openai = OpenAI API (chat completions)
setup-preset-anthropic = Anthropic Messages API
setup-preset-kimi = Moonshot Kimi (OpenAI-compatible); kimi-k3 uses reasoning_effort low|high|max
setup-preset-qwen = Alibaba Qwen on DashScope (OpenAI-compatible mode)
setup-preset-glm = Zhipu GLM (BigModel, OpenAI-compatible); thinking enabled|disabled
setup-preset-minimax = MiniMax M-series (OpenAI-compatible); thinking adaptive|disabled
setup-preset-openrouter = OpenRouter gateway (OpenAI-compatible); model ids contain '/'
setup-preset-ollama = Local Ollama server (OpenAI-compatible, no key); set `model` to a pulled model
setup-preset-llamacpp = Local llama.cpp server (llama-server, OpenAI-compatible, no key)

## Slash commands: their descriptions in /help and the completion menu (slash-<name>)
slash-help = List commands and keys
slash-new = Start a new session (this one is saved)
slash-clear = Discard this conversation's context without saving it
slash-resume = Pick an earlier session to continue
slash-model = Show or switch the model
slash-effort = Show or set the reasoning effort
slash-mode = Show or set the run mode (economy, balanced, delivery)
slash-goal = Work on an objective until its checks pass
slash-status = Model, posture, workspace and session
slash-cost = Tokens, cache hits and cost of this session
slash-permissions = Show the permission rules in force
slash-plugins = Installed plugins
slash-mcp = MCP servers: state, reconnect one, approve the project's
slash-tools = Tools the model can call
slash-agents = Sub-agent profiles `task` can run (built-in, yours, the project's)
slash-skills = Skills: where each comes from, whether the model is offered it
slash-agent = Agent compositions; with a name, a new session as that one
slash-sessions = Sessions of this workspace
slash-memory = Saved facts: this project's and yours (recalled into matching turns)
slash-remember = Save a fact for later sessions (also a one-line `# fact`)
slash-forget = Archive a saved fact
slash-rewind = Go back to a turn: files, conversation or both
slash-fork = Go on in a copy of this session (before turn N)
slash-tree = Sessions of this workspace with their forks
slash-compact = Fold older work into a summary now (focus text guides it)
slash-init = Write a starter REASONIX.md for this project with the model
slash-quit = Exit Reasonix
slash-help-commands = Commands
slash-help-custom = Custom commands
slash-help-skills = Skills
slash-help-mcp-prompts = MCP prompts
slash-help-also = also { $aliases }
slash-help-untrusted = untrusted workspace

## The session's banner
banner-as = {"  "}as { $name }
banner-keys = { $workspace }  ·  /help for commands, Shift+Tab posture, Ctrl+D to leave
setup-problem-base-url = enter the endpoint's base URL, e.g. http://localhost:8080/v1
setup-problem-bad-url = the base URL { $error }
setup-problem-model = enter the model id the endpoint serves
setup-problem-model-spaces = a model id has no spaces
setup-problem-key = paste the API key (Esc goes back)
setup-test-stopped = the test stopped without an answer

## A turn under way, the tool-call list (draw.rs, calls.rs)
turn-cancelling = cancelling
turn-saving = saving
turn-waiting-provider = waiting for the provider (no data for { $seconds } s)
turn-working = working
turn-esc-cancels = {"  (Esc to cancel)"}
turn-ctrl-c-again = press Ctrl+C again to exit (or Ctrl+D)
calls-title = {"Tool calls of this session  "}
calls-keys = ↑/↓ · Enter shows it in full · Esc
calls-none = {"  none yet"}
turn-thinking = {"  "}∴ thinking… ({ $lines } { $lines ->
        [one] line
       *[other] lines
    }, Ctrl+O shows them)
turn-more-questions = ({ $count } more { $count ->
        [one] question
       *[other] questions
    } waiting)
turn-queued = {"  "}queued: { $text }
