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
