# What the interactive session's slash commands print (host-cli/src/tui/actions.rs, app.rs).
