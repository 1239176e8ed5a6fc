# Messages composed below the binary that a person reads: provider errors
# (kernel/agent/src/completion.rs).

completion-unknown-kind = provider `{ $provider }` has kind `{ $kind }`, which no loaded plugin serves; kinds served: { $served }
completion-missing-key = provider `{ $provider }` needs an API key: set { $env } in the environment or in { $dotenv }
completion-auth = provider `{ $provider }` rejected the credentials: { $message } (fix the key: run `reasonix setup`, or set the variable the provider's `api_key_env` names, in the environment or <home>/.env)
completion-quota = provider `{ $provider }`: quota exhausted, not retrying: { $message }
completion-retry-after-too-long = provider `{ $provider }` asks to retry after { $wait } s, longer than the longest wait ({ $cap } s); not retrying: { $message }
completion-http = provider `{ $provider }` answered HTTP { $status }: { $body }
completion-retries-exhausted = provider `{ $provider }`: gave up after { $attempts } { $attempts ->
        [one] attempt
       *[other] attempts
    }; last error: { $last }
completion-unreachable = provider `{ $provider }`: cannot reach { $endpoint }; gave up after { $attempts } { $attempts ->
        [one] attempt
       *[other] attempts
    }: { $message }
completion-retry-budget = provider `{ $provider }`: gave up after { $attempts } { $attempts ->
        [one] attempt
       *[other] attempts
    } in { $spent } s, the retry budget (retry_budget_seconds = { $budget }); a retry in { $wait } s would pass it; last error: { $last }
completion-deadline = provider `{ $provider }`: { $what }
completion-stalled = provider `{ $provider }` sent nothing for { $seconds } s; the stream was stopped
completion-interrupted = provider `{ $provider }`: the stream was cut: { $message }
completion-bad-response = provider `{ $provider }` sent a malformed stream: { $message }
completion-upstream = provider `{ $provider }` reported an error: { $message }
completion-failed = provider `{ $provider }`: { $message }
completion-cancelled = cancelled
