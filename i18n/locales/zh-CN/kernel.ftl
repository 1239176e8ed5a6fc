# 程序下层组成、供人阅读的消息：模型提供方的错误（kernel/agent/src/completion.rs）。

completion-unknown-kind = 提供方 `{ $provider }` 的类型为 `{ $kind }`，没有已加载的插件提供该类型；可用类型：{ $served }
completion-missing-key = 提供方 `{ $provider }` 需要 API 密钥：请在环境变量或 { $dotenv } 中设置 { $env }
completion-auth = 提供方 `{ $provider }` 拒绝了凭据：{ $message }（修正密钥：运行 `reasonix setup`，或在环境变量或 <home>/.env 中设置该提供方 `api_key_env` 指定的变量）
completion-quota = 提供方 `{ $provider }`：额度已用尽，不再重试：{ $message }
completion-retry-after-too-long = 提供方 `{ $provider }` 要求 { $wait } 秒后重试，超过最长等待时间（{ $cap } 秒）；不再重试：{ $message }
completion-http = 提供方 `{ $provider }` 返回 HTTP { $status }：{ $body }
completion-retries-exhausted = 提供方 `{ $provider }`：尝试 { $attempts } 次后放弃；最后一次错误：{ $last }
completion-unreachable = 提供方 `{ $provider }`：无法连接 { $endpoint }；尝试 { $attempts } 次后放弃：{ $message }
completion-retry-budget = 提供方 `{ $provider }`：在 { $spent } 秒内尝试 { $attempts } 次后放弃，已达重试预算（retry_budget_seconds = { $budget }）；{ $wait } 秒后的重试会超出预算；最后一次错误：{ $last }
completion-deadline = 提供方 `{ $provider }`：{ $what }
completion-stalled = 提供方 `{ $provider }` 已 { $seconds } 秒没有发送任何数据；已停止该流
completion-interrupted = 提供方 `{ $provider }`：流被中断：{ $message }
completion-bad-response = 提供方 `{ $provider }` 发送了格式错误的流：{ $message }
completion-upstream = 提供方 `{ $provider }` 报告错误：{ $message }
completion-failed = 提供方 `{ $provider }`：{ $message }
completion-cancelled = 已取消
