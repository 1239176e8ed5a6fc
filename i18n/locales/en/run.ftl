# `reasonix run`'s text output and the errors the binary prints (host-cli/src/commands/run/,
# wording.rs, exit.rs).

## Tool activity and notes on stderr (`--output-format text`, `json`)
run-subagent-started = ⇢ sub-agent { $label } ({ $model })
run-subagent-finished = ⇠ sub-agent { $label }: { $status } ({ $steps } { $steps ->
        [one] request
       *[other] requests
    })
run-child-tool-started = {"  "}[{ $label }] → { $name } { $arguments }
run-child-tool-error = {"  "}[{ $label }] ← { $name }: error: { $first }
run-child-note = note: [{ $label }] { $text }
run-child-retrying = [{ $label }] retrying ({ $attempt }/{ $max }) in { $delay } s: { $reason }
run-note = note: { $text }
run-retrying = retrying ({ $attempt }/{ $max }) in { $delay } s: { $reason }
run-tool-not-run = ✗ { $name } not run: { $first }
run-tool-error = ← { $who }error: { $first }
run-tool-ok = ← { $who }ok { $lines } { $lines ->
        [one] line
       *[other] lines
    }
run-error = error: { $message }

## Facts worded alike by a run and the session (host-cli/src/wording.rs)
wording-compacted = compacted the history ({ $tier }{ $manual ->
        [yes] , /compact
       *[no] {""}
    }, #{ $number }): ~{ $before } → ~{ $after } tokens, ~{ $saved } saved
wording-tools-changed = tools changed between turns:{ $changes }
wording-restarted-reasoning = the stream was cut and the replay thinks differently: its reasoning again from the start
wording-restarted-answer = the stream was cut and the replay answers differently: the answer again from its start
wording-not-run = `{ $name }` not run: { $reason }
