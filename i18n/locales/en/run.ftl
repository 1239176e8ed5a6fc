# `reasonix run`'s text output and the errors the binary prints (host-cli/src/commands/run/,
# wording.rs, exit.rs).
