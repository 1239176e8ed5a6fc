# The interactive session's cards, composer, pickers and pop-ups (host-cli/src/tui/).
